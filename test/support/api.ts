import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { Response, Test } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { type AppConfig, loadConfig } from '@app/config';
import { createApiApp } from '../../apps/api/src/bootstrap';
import { OpsServer } from '../../apps/api/src/health/ops-server';
import { createLogger } from '@app/observability';
import { freePort } from './browser';
import { ContractValidator } from './contract';

export const API = '/api/public/v1';

export interface TestApi {
  app: INestApplication;
  config: AppConfig;
  /** supertest against the app; every response is checked against the served OpenAPI document. */
  http: TestAgent;
  /** The same without the contract check, for deliberately malformed traffic. */
  raw: TestAgent;
  document: Record<string, unknown>;
  close(): Promise<void>;
}

let cachedDocument: Record<string, unknown> | null = null;

export function contractCheck(validator: ContractValidator): (res: Response) => void {
  return (res: Response) => {
    const req = (res as unknown as { req: { method: string; path: string } }).req;
    validator.assert({
      method: req.method,
      path: req.path.split('?')[0],
      status: res.status,
      contentType: res.headers['content-type'],
      body: res.body,
    });
  };
}

/** Wraps an agent so that each request it starts carries the contract assertion. */
function checked(agent: TestAgent, validator: ContractValidator): TestAgent {
  const check = contractCheck(validator);
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property === 'string' && ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'].includes(property)) {
        return (url: string) => ((value as (u: string) => Test).call(target, url) as Test).expect(check);
      }
      return value;
    },
  });
}

/** Boots the real api app on the test database (see global-setup) with optional settings. */
export async function startApi(env: Record<string, string> = {}): Promise<TestApi> {
  const config = loadConfig({ ...process.env, PUBLIC_BASE_URL: 'http://api.test', ...env });
  const app = await createApiApp(config, createLogger('silent', 'api-test'));
  // Rate-limit counters live in the run's database: each suite starts with none, as a fresh app did
  // when they were in memory (otherwise one suite's sign-ins from 127.0.0.1 count in the next).
  await app.get<DataSource>(getDataSourceToken()).query('DELETE FROM rate_limit_counters');
  const server = app.getHttpServer();
  const raw = request(server) as unknown as TestAgent;
  if (!cachedDocument) {
    const res = await request(server).get(`${API}/schema/`).expect(200);
    cachedDocument = res.body as Record<string, unknown>;
  }
  const validator = new ContractValidator(cachedDocument);
  return {
    app,
    config,
    raw,
    http: checked(request(server) as unknown as TestAgent, validator),
    document: cachedDocument,
    close: () => app.close(),
  };
}

/** The api listening on a free loopback port, with PUBLIC_BASE_URL pointing at it (for browsers). */
export async function startListeningApi(env: Record<string, string> = {}): Promise<TestApi & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const api = await startApi({ PUBLIC_BASE_URL: base, ...env });
  await api.app.listen(port, '127.0.0.1');
  return { ...api, base };
}

/** The api's operations port (metrics, detailed readiness) on a free loopback port, as main.ts starts it. */
export async function opsAgent(api: TestApi): Promise<TestAgent> {
  const { port } = await api.app.get(OpsServer).listen(0, '127.0.0.1');
  return request(`http://127.0.0.1:${port}`) as unknown as TestAgent;
}
