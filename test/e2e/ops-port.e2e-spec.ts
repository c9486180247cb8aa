import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import request from 'supertest';
import { loadConfig } from '@app/config';
import { OpsServer } from '../../apps/api/src/health/ops-server';
import { API, startApi, type TestApi } from '../support/api';
import { AppProcess, builtApp, freePort } from '../support/app-process';
import { createTenant } from '../support/fixtures';
import { waitFor } from '../support/wait';

/** An address of this machine other than loopback, if it has one (to prove a port is not bound there). */
function externalAddress(): string | null {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  return null;
}

/** Whether a TCP connection to host:port is accepted (an HTTP answer of any status). */
async function answers(host: string, port: number, path = '/health/live'): Promise<boolean> {
  try {
    await fetch(`http://${host}:${port}${path}`, { signal: AbortSignal.timeout(2000) });
    return true;
  } catch {
    return false;
  }
}

describe('operations port: metrics and the detailed readiness report are not on the public port', () => {
  describe('api (in process)', () => {
    let api: TestApi;
    let ops: ReturnType<typeof request>;

    beforeAll(async () => {
      api = await startApi();
      const address: AddressInfo = await api.app.get(OpsServer).listen(0, '127.0.0.1');
      ops = request(`http://127.0.0.1:${address.port}`);
    });
    afterAll(() => api.close());

    it('answers 404 on the public port for /metrics; readiness there says only ok or unavailable', async () => {
      await api.raw.get('/metrics').expect(404);
      await api.raw.get('/metrics/').expect(404);
      await api.raw.get('/health/live').expect(200, { status: 'ok' });
      // Until the outbox relay has reached the broker the answer is 503 `unavailable`, details never.
      const first = await api.raw.get('/health/ready');
      expect(first.body).toEqual({ status: first.status === 200 ? 'ok' : 'unavailable' });
      await waitFor('public readiness', async () => (await api.raw.get('/health/ready')).status === 200, 15_000);
      const ready = await api.raw.get('/health/ready').expect(200);
      expect(ready.body).toEqual({ status: 'ok' });
      expect(ready.text).not.toContain('database');
      expect(ready.headers['cache-control']).toBe('no-store');
    });

    it('serves Prometheus metrics, liveness and the detailed readiness report on the ops port', async () => {
      const tenant = await createTenant(api.app, ['accounts:read'], 'Ops Co');
      await api.http.get(`${API}/accounts/${tenant.accountId}/`).set(tenant.auth).expect(200);
      const metrics = await ops.get('/metrics').expect(200);
      expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(metrics.headers['cache-control']).toBe('no-store');
      expect(metrics.text).toMatch(/http_request_duration_seconds_bucket\{[^}]*route="\/api\/public\/v1\/accounts\/:account_id"/);
      expect(metrics.text).toMatch(/http_requests_total\{[^}]*status="200"/);
      await ops.get('/health/live').expect(200, { status: 'ok' });
      const ready = await ops.get('/health/ready').expect(200);
      expect(ready.body).toEqual({ status: 'ok', checks: expect.objectContaining({ database: 'ok' }) });
    });

    it('serves nothing else on the ops port: no API, no panel, no other method', async () => {
      await ops.get(`${API}/`).expect(404);
      await ops.get('/panel/sign-in/').expect(404);
      await ops.post('/metrics').expect(405).expect('Allow', 'GET, HEAD');
      await ops.get('/metrics/').expect(200);
    });
  });

  describe('built apps as processes', () => {
    const processes: AppProcess[] = [];
    afterAll(async () => {
      for (const child of processes) await child.kill('SIGTERM');
    });

    it('api: public port without /metrics; OPS_PORT on loopback only (the default OPS_HOST)', async () => {
      builtApp('api');
      const [port, opsPort] = [await freePort(), await freePort()];
      const child = AppProcess.spawn('api', 'api', port, { ...process.env, PORT: String(port), OPS_PORT: String(opsPort), OUTBOX_RELAY: 'off', LOG_LEVEL: 'info' });
      processes.push(child);
      await waitFor('the api ops port', async () => (await answers('127.0.0.1', opsPort)) || !child.running, 30_000);
      expect(child.running).toBe(true);
      expect(await child.status('/metrics')).toBe(404);
      expect(await child.status('/health/live')).toBe(200);
      const metrics = await fetch(`http://127.0.0.1:${opsPort}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('process_cpu_user_seconds_total{app="api"}');
      const external = externalAddress();
      if (external) {
        expect(await answers(external, port)).toBe(true); // the public port is public
        expect(await answers(external, opsPort)).toBe(false);
      }
    });

    it('dispatcher: DISPATCHER_PORT (health and metrics only) listens on loopback only by default', async () => {
      builtApp('dispatcher');
      const port = await freePort();
      const child = AppProcess.spawn('dispatcher', 'dispatcher', port, { ...process.env, DISPATCHER_PORT: String(port), LOG_LEVEL: 'info' });
      processes.push(child);
      await waitFor('the dispatcher port', async () => (await answers('127.0.0.1', port)) || !child.running, 30_000);
      expect(child.running).toBe(true);
      expect(await child.status('/metrics')).toBe(200);
      const external = externalAddress();
      if (external) expect(await answers(external, port)).toBe(false);
    });
  });

  it('validates OPS_HOST and refuses an ops port equal to the public port', () => {
    expect(loadConfig({ ...process.env, OPS_HOST: '', OPS_PORT: '' })).toMatchObject({ opsHost: '127.0.0.1', opsPort: 9464 });
    expect(loadConfig({ ...process.env, OPS_HOST: '0.0.0.0' }).opsHost).toBe('0.0.0.0');
    expect(() => loadConfig({ ...process.env, OPS_HOST: 'prometheus.example.com' })).toThrow(/OPS_HOST/);
    expect(() => loadConfig({ ...process.env, PORT: '8080', OPS_PORT: '8080' })).toThrow(/OPS_PORT/);
  });
});
