import { Writable } from 'node:stream';
import { loadConfig } from '@app/config';
import request from 'supertest';
import { createApiApp } from '../../apps/api/src/bootstrap';
import { createLogger } from '@app/observability';
import { API } from '../support/api';
import { createTenant } from '../support/fixtures';

describe('structured request logs', () => {
  it('writes one JSON line per request with its request id, and never a secret or token', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'info';
    const app = await createApiApp(loadConfig(), createLogger('info', 'api', sink));
    try {
      const tenant = await createTenant(app, ['accounts:read']);
      const server = app.getHttpServer();
      await request(server)
        .post(`${API}/oauth/token/?client_secret=${encodeURIComponent(tenant.credential.client_secret)}`)
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: tenant.credential.client_id, client_secret: tenant.credential.client_secret })
        .expect(200);
      await request(server).get(`${API}/accounts/`).set(tenant.auth).set('X-Request-ID', 'trace-logging-1').expect(200);

      const entries = lines.map((line) => JSON.parse(line) as { req?: { id: string; path: string }; res?: { status: number } });
      expect(entries.find((e) => e.req?.id === 'trace-logging-1')).toMatchObject({ req: { path: `${API}/accounts/` }, res: { status: 200 } });
      const everything = lines.join('\n');
      expect(everything).not.toContain(tenant.credential.client_secret);
      expect(everything).not.toContain(tenant.token);
      expect(everything).not.toContain(encodeURIComponent(tenant.credential.client_secret));
    } finally {
      process.env.LOG_LEVEL = previous;
      await app.close();
    }
  });
});
