import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import type TestAgent from 'supertest/lib/agent';
import { ApiLimitStore } from '../../apps/api/src/common/rate-limits/api-limit-store';
import { API, startListeningApi, type TestApi } from '../support/api';
import { freePort } from '../support/app-process';
import { createTenant } from '../support/fixtures';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait';

/** Redis of this machine (CI starts it, see .ci/run); every run counts under its own key prefix. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const FORM = { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' };

/** Sends each request to the next api in turn, as a round-robin load balancer does. */
function roundRobin(apis: TestApi[]): () => TestAgent {
  let next = 0;
  return () => apis[next++ % apis.length].http;
}

describe('shared rate limits: two api replicas counting in one Redis', () => {
  const prefix = `test-${randomUUID()}`;
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let a: TestApi;
  let b: TestApi;

  beforeAll(async () => {
    await redis.connect();
    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: '6', TOKEN_RATE_LIMIT_PER_MINUTE: '6' };
    [a, b] = await Promise.all([startListeningApi(env), startListeningApi(env)]);
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('allows one credential the configured limit across both replicas together, not twice it', async () => {
    const tenant = await createTenant(a.app, ['accounts:read'], 'Shared limit'); // one token request, on a
    const next = roundRobin([a, b]);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const res = await next().get(`${API}/accounts/`).set(tenant.auth);
      statuses.push(res.status);
      if (res.status === 200) expect(res.headers.ratelimit).toMatch(new RegExp(`^"per-credential";r=${5 - i};t=\\d+$`));
    }
    expect(statuses).toEqual([...Array<number>(6).fill(200), ...Array<number>(6).fill(429)]);
    expect(await redis.keys(`${prefix}:rate-limit:per-credential:*`)).toHaveLength(1);
  });

  it('counts the token endpoint per client address across both replicas together', async () => {
    // the previous test made one token request from this address; the limit is 6
    const next = roundRobin([b, a]);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) statuses.push((await next().post(`${API}/oauth/token/`).type('form').send(FORM)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });
});

describe('shared rate limits while Redis is unreachable: the in-memory insurance limiter answers', () => {
  const timed = async (agent: TestAgent, auth: Record<string, string>): Promise<{ status: number; ms: number }> => {
    const started = Date.now();
    const res = await agent.get(`${API}/accounts/`).set(auth);
    return { status: res.status, ms: Date.now() - started };
  };

  it('limits, without a 5xx or a stall, when nothing listens on the Redis port', async () => {
    const closedPort = await freePort();
    const api = await startListeningApi({ REDIS_URL: `redis://127.0.0.1:${closedPort}`, RATE_LIMIT_PER_MINUTE: '3', REDIS_TIMEOUT_MS: '200' });
    try {
      const tenant = await createTenant(api.app, ['accounts:read'], 'Insured limit');
      const results = [];
      for (let i = 0; i < 5; i += 1) results.push(await timed(api.http, tenant.auth));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      for (const { ms } of results) expect(ms).toBeLessThan(2000);
    } finally {
      await api.close();
    }
  });

  it('limits, without a 5xx or a stall, when Redis accepts the connection and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const api = await startListeningApi({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '3', REDIS_TIMEOUT_MS: '200' });
    try {
      const tenant = await createTenant(api.app, ['accounts:read'], 'Silent Redis');
      const results = [];
      for (let i = 0; i < 5; i += 1) results.push(await timed(api.http, tenant.auth));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
      for (const { ms } of results) expect(ms).toBeLessThan(2000);
    } finally {
      await api.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});

describe('shared rate limits when Redis stops answering mid-run, and comes back', () => {
  const prefix = `test-${randomUUID()}`;
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const target = new URL(REDIS_URL);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));

  afterAll(async () => {
    await proxy.down();
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('answers from the insurance limiter within the command timeout, then counts in Redis again', async () => {
    await redis.connect();
    await proxy.up();
    const api = await startListeningApi({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_MINUTE: '4', REDIS_TIMEOUT_MS: '200' });
    const store = api.app.get(ApiLimitStore);
    try {
      const tenant = await createTenant(api.app, ['accounts:read'], 'Stalled Redis');
      await waitFor('the api connected to Redis', () => store.redisReady, 5000);
      const call = async (): Promise<{ status: number; ms: number; remaining: string }> => {
        const started = Date.now();
        const res = await api.http.get(`${API}/accounts/`).set(tenant.auth);
        return { status: res.status, ms: Date.now() - started, remaining: String(res.headers.ratelimit).replace(/^.*;r=(\d+);.*$/, '$1') };
      };
      expect((await call()).remaining).toBe('3'); // counted in Redis
      expect(await redis.keys(`${prefix}:rate-limit:per-credential:*`)).toHaveLength(1);

      proxy.stall(); // connected, but nothing reaches Redis: each command times out, the insurance limiter answers
      const stalled = [];
      for (let i = 0; i < 5; i += 1) stalled.push(await call());
      expect(stalled.map((r) => r.status)).toEqual([200, 200, 200, 200, 429]);
      for (const { ms } of stalled) expect(ms).toBeLessThan(2000);

      await proxy.down(); // drops the stalled connection (its unsent commands with it)
      await waitFor('the api noticed', () => !store.redisReady, 5000);
      proxy.resume();
      await proxy.up();
      await waitFor('the api reconnected to Redis', () => store.redisReady, 10_000);
      expect(await call()).toMatchObject({ status: 200, remaining: '2' }); // Redis counts again: 2 of 4 used
    } finally {
      await api.close();
    }
  });
});
