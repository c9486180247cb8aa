import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import {
  ApiError,
  AuthenticationError,
  ColdchainClient,
  ConnectionError,
  NotFoundError,
  OPERATION_METHODS,
  OPERATIONS,
  RateLimitError,
  signStandardWebhook,
  signWebhook,
  StandardWebhook,
  VERSION,
  verifyStandardWebhook,
  verifyWebhook,
  Webhook,
  WebhookVerificationError,
  isEventType,
} from '../../clients/node/src/index';

/**
 * The Node.js client without a service: its generated files match clients/openapi.json (drift
 * check), every operation of the document has a method that sends that operation, and the
 * transport and webhook rules hold (against a scripted fetch).
 */
const ROOT = process.cwd();
const document = JSON.parse(readFileSync(join(ROOT, 'clients', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId: string }>>;
};
const documentOperations = Object.entries(document.paths).flatMap(([path, item]) =>
  ['get', 'put', 'post', 'patch', 'delete'].filter((m) => item[m]).map((m) => ({ id: item[m].operationId, method: m.toUpperCase(), path })),
);

type Sent = { url: URL; method: string; headers: Record<string, string>; body: string | undefined };
type Script = (sent: Sent, index: number) => Response | Promise<Response>;

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': `req-${status}`, ...headers } });
const TOKEN = (expiresIn = 3600, value = 'token-value-1'): Response => json(200, { access_token: value, token_type: 'Bearer', expires_in: expiresIn, scope: 'devices:read' });

/** A client whose fetch records each request and answers from `script` (the token endpoint answers a token unless scripted). */
function scripted(script: Script, options: Record<string, unknown> = {}, token: () => Response = () => TOKEN()) {
  const sent: Sent[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    const entry = { url: new URL(String(input)), method: init?.method ?? 'GET', headers, body: init?.body as string | undefined };
    sent.push(entry);
    if (entry.url.pathname === '/api/public/v1/oauth/token/' && !options.scriptToken) return token();
    return script(entry, sent.length - 1);
  };
  const client = new ColdchainClient({
    baseUrl: 'https://api.example.test/api/public/v1/',
    clientId: 'client-id-1',
    clientSecret: 'super-secret-value',
    fetch: fetchImpl as typeof fetch,
    ...options,
  });
  const api = () => sent.filter((s) => s.url.pathname !== '/api/public/v1/oauth/token/');
  const tokens = () => sent.filter((s) => s.url.pathname === '/api/public/v1/oauth/token/');
  return { client, sent, api, tokens };
}

describe('Node.js client: generated code (drift check)', () => {
  it('clients/node/src/generated matches what clients/openapi.json generates', () => {
    const output = execFileSync(process.execPath, [join(ROOT, 'scripts', 'clients', 'generate-node.js'), '--check'], { encoding: 'utf8' });
    expect(output).toContain('match clients/openapi.json');
  });

  it('the operation table is the document’s operations', () => {
    expect(Object.keys(OPERATIONS).sort()).toEqual(documentOperations.map((o) => o.id).sort());
    for (const op of documentOperations) expect(OPERATIONS[op.id as keyof typeof OPERATIONS]).toMatchObject({ method: op.method, path: op.path });
  });

  it('package.json and the exported VERSION agree', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'clients', 'node', 'package.json'), 'utf8')) as { name: string; version: string };
    expect(pkg.name).toBe('@coldchain/client');
    expect(pkg.version).toBe(VERSION);
  });
});

describe('Node.js client: one method for every operation', () => {
  it('maps every operationId of the document to a method', () => {
    expect(Object.keys(OPERATION_METHODS).sort()).toEqual(documentOperations.map((o) => o.id).sort());
  });

  it.each(documentOperations)('$id: calling its method sends $method $path', async (op) => {
    const { client, api } = scripted((sent) => {
      if (sent.url.pathname.endsWith('/download/')) return new Response('file', { status: 200, headers: { 'content-type': 'text/csv' } });
      if (sent.method === 'DELETE') return json(204, null);
      return json(sent.method === 'POST' && OPERATIONS[op.id as keyof typeof OPERATIONS].idempotencyKey ? 201 : 200, { data: [], links: { next: null }, access_token: 't', expires_in: 3600 });
    });
    const [resource, method] = OPERATION_METHODS[op.id as keyof typeof OPERATION_METHODS].split('.');
    const target = (client as unknown as Record<string, Record<string, (...args: unknown[]) => unknown>>)[resource];
    expect(typeof target?.[method]).toBe('function');
    const info = OPERATIONS[op.id as keyof typeof OPERATIONS];
    const args: unknown[] = info.pathParams.map((_, i) => `p${i}`);
    if (info.requestBody && op.id !== 'TokenController_token') args.push({});
    if (op.id === 'RolesController_list') args.length = 0;
    let result = await (target[method].call(target, ...args) as unknown);
    if (result && typeof (result as { firstPage?: unknown }).firstPage === 'function') result = await (result as { firstPage(): Promise<unknown> }).firstPage();
    if (op.id === 'ReportsController_download') (result as { body: NodeJS.ReadableStream }).body.resume();
    const calls = op.id === 'TokenController_token' ? [] : api();
    if (op.id !== 'TokenController_token') {
      expect(calls).toHaveLength(1);
      const expected = new RegExp(`^${op.path.replace(/\{[^}]+\}/g, 'p\\d')}$`);
      expect(calls[0].method).toBe(op.method);
      expect(calls[0].url.pathname).toMatch(expected);
      expect(Boolean(calls[0].headers['idempotency-key'])).toBe(info.idempotencyKey);
      expect(calls[0].headers.authorization).toBe(info.authenticated ? 'Bearer token-value-1' : undefined);
    }
  });
});

describe('Node.js client: transport rules', () => {
  it('caches the token and replaces it shortly before it expires', async () => {
    let issued = 0;
    const { client, tokens, api } = scripted(() => json(200, { id: 'd1' }), {}, () => TOKEN(2, `token-${++issued}`));
    await client.devices.get('d1');
    await client.devices.get('d1');
    expect(tokens()).toHaveLength(1); // cached
    await new Promise((r) => setTimeout(r, 1900)); // lifetime 2 s, margin 10 % → replaced after 1.8 s
    await client.devices.get('d1');
    expect(tokens()).toHaveLength(2);
    expect(api().map((c) => c.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-1', 'Bearer token-2']);
    // the token request carries the credential in the form body, never in a URL
    expect(tokens()[0].url.search).toBe('');
    expect(tokens()[0].body).toContain('grant_type=client_credentials');
  });

  it('shares one token request between concurrent calls', async () => {
    const { client, tokens } = scripted(() => json(200, { id: 'd1' }));
    await Promise.all([client.devices.get('a'), client.devices.get('b'), client.devices.get('c')]);
    expect(tokens()).toHaveLength(1);
  });

  it('retries 429/503 honouring Retry-After, reusing the Idempotency-Key, then succeeds', async () => {
    const { client, api } = scripted((_s, i) => (i < 3 ? json(i === 1 ? 429 : 503, { code: 'rate_limited', title: 'x', status: 429 }, { 'retry-after': '0' }) : json(201, { id: 'loc-1' })));
    const created = await client.locations.create({ name: 'x' } as never);
    expect(created.id).toBe('loc-1');
    const keys = api().map((c) => c.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(created.lastResponse.idempotencyKey).toBe(keys[0]);
  });

  it('bounds retries in count', async () => {
    const { client, api } = scripted(() => json(429, { code: 'rate_limited', title: 'Too many requests', status: 429 }, { 'retry-after': '0' }), { maxRetries: 2 });
    const error = await client.devices.get('d').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(0);
    expect(api()).toHaveLength(3);
  });

  it('bounds retries in time: a Retry-After beyond the budget fails at once', async () => {
    const { client, api } = scripted(() => json(429, { code: 'rate_limited', title: 'Too many requests', status: 429 }, { 'retry-after': '120' }), { maxRetryTimeMs: 1000 });
    await expect(client.devices.get('d')).rejects.toBeInstanceOf(RateLimitError);
    expect(api()).toHaveLength(1);
  });

  it('retries connection errors of safe requests, never of a POST without Idempotency-Key', async () => {
    const refused = () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
    const get = scripted((_s, i) => (i < 2 ? refused() : json(200, { id: 'd' })), { maxRetries: 3 });
    await expect(get.client.devices.get('d')).resolves.toMatchObject({ id: 'd' });
    const post = scripted(() => refused(), { maxRetries: 3 });
    const error = await post.client.shipments.complete(5).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect(post.api()).toHaveLength(1);
  });

  it('refreshes the token once on a 401, then reports the 401', async () => {
    let issued = 0;
    const unauthorized = () => json(401, { type: 'about:blank', title: 'Unauthorized', status: 401, code: 'invalid_token' });
    const once = scripted((_s, i) => (i === 1 ? unauthorized() : json(200, { id: 'd' })), {}, () => TOKEN(3600, `t${++issued}`));
    await expect(once.client.devices.get('d')).resolves.toMatchObject({ id: 'd' });
    expect(once.tokens()).toHaveLength(2);
    const always = scripted(() => unauthorized());
    await expect(always.client.devices.get('d')).rejects.toBeInstanceOf(AuthenticationError);
    expect(always.tokens()).toHaveLength(2);
    expect(always.api()).toHaveLength(2);
  });

  it('raises a typed error with status, code, title, detail, field errors and request id', async () => {
    const { client } = scripted(() =>
      json(404, { type: 'urn:coldchain:problem:not_found', title: 'Not found', status: 404, detail: 'No such device.', code: 'not_found', errors: [{ field: 'device_id', code: 'x', message: 'y' }] }, { 'content-type': 'application/problem+json', 'x-request-id': 'rid-42' }),
    );
    const error = (await client.devices.get('nope').catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', title: 'Not found', detail: 'No such device.', requestId: 'rid-42', errors: [{ field: 'device_id', code: 'x', message: 'y' }] });
    expect(error.message).toBe('GET /api/public/v1/devices/nope/ failed with 404 not_found: No such device. [device_id: x] (request rid-42)');
  });

  it('never shows the secret or the token in errors, logs or inspection', async () => {
    const lines: string[] = [];
    const logger = { debug: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    const { client } = scripted((_s, i) => (i === 1 ? json(503, { code: 'service_unavailable', title: 'x', status: 503 }, { 'retry-after': '0' }) : json(400, { code: 'validation_failed', title: 'Bad', status: 400 })), { logger });
    const error = await client.devices.get('d').catch((e: unknown) => e);
    const seen = [inspect(client, { depth: 10 }), JSON.stringify(client), inspect(error, { depth: 10 }), String(error), ...lines].join('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(seen).not.toContain('super-secret-value');
    expect(seen).not.toContain('token-value-1');
    const bad = scripted(() => json(200, {}), {}, () => json(401, { error: 'invalid_client', error_description: 'Client authentication failed' }));
    const authError = await bad.client.devices.get('d').catch((e: unknown) => e);
    expect(authError).toBeInstanceOf(AuthenticationError);
    expect((authError as AuthenticationError).code).toBe('invalid_client');
    expect(`${inspect(authError, { depth: 10 })}${String(authError)}`).not.toContain('super-secret-value');
  });

  it('sends X-Service-Account-ID from the client, per call, or not at all', async () => {
    const { client, api } = scripted(() => json(200, { data: [], links: { next: null } }), { accountId: 'acc-1' });
    await client.devices.list().firstPage();
    await client.devices.list(undefined, { accountId: 'acc-2' }).firstPage();
    await client.devices.list(undefined, { accountId: null }).firstPage();
    await client.withAccount('acc-3').devices.list().firstPage();
    expect(api().map((c) => c.headers['x-service-account-id'])).toEqual(['acc-1', 'acc-2', undefined, 'acc-3']);
  });

  it('appends a custom User-Agent to its own, and withAccount() keeps it (issue 29)', async () => {
    const { client, api } = scripted(() => json(200, { data: [], links: { next: null } }), { userAgent: 'my-app/2.0', accountId: 'acc-1' });
    await client.devices.list().firstPage();
    await client.withAccount('acc-2').devices.list().firstPage();
    const agents = api().map((c) => c.headers['user-agent']);
    expect(agents[0]).toMatch(/^coldchain-node\/\S+ node\/\S+ my-app\/2\.0$/);
    expect(agents[1]).toBe(agents[0]);
  });

  it('follows links.next on its own origin only', async () => {
    const pages = [
      { data: [1, 2], links: { next: 'http://public.example/api/public/v1/devices/?cursor=abc&limit=2' } },
      { data: [3], links: { next: null } },
    ];
    const { client, api } = scripted((_s, i) => json(200, pages[i - 1]));
    expect(await client.devices.list({ limit: 2 }).toArray()).toEqual([1, 2, 3]);
    expect(api().map((c) => `${c.url.origin}${c.url.pathname}${c.url.search}`)).toEqual([
      'https://api.example.test/api/public/v1/devices/?limit=2',
      'https://api.example.test/api/public/v1/devices/?cursor=abc&limit=2',
    ]);
  });
});

describe('Node.js client: webhooks', () => {
  const secret = 'whsec_test_secret';
  const body = JSON.stringify({ id: '0b7c1e55-1111-4222-8333-944455556666', type: 'alarm.created', created_at: '2026-01-01T00:00:00Z', data: { id: 'a1', severity: 'WARNING' } });
  const now = Date.now();
  const timestamp = String(Math.floor(now / 1000));
  const headers = (sig = signWebhook(secret, timestamp, body), ts = timestamp) => ({
    'X-Service-Timestamp': ts,
    'X-Service-Signature': sig,
    'X-Service-Event-ID': '0b7c1e55-1111-4222-8333-944455556666',
    'X-Service-Event': 'alarm.created',
  });

  it('verifies and parses a signed request, with one or several secrets', () => {
    const event = verifyWebhook(Buffer.from(body), headers(), secret);
    expect(event.type).toBe('alarm.created');
    expect(isEventType(event, 'alarm.created') && event.data.severity).toBe('WARNING');
    expect(new Webhook(['old-secret', secret]).verify(body, new Headers(headers())).id).toBe('0b7c1e55-1111-4222-8333-944455556666');
  });

  it('rejects a wrong secret, a changed body, an old timestamp and parsed JSON', () => {
    expect(() => verifyWebhook(body, headers(), 'wrong')).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(`${body} `, headers(), secret)).toThrow('signature does not match');
    const old = String(Number(timestamp) - 301);
    expect(() => verifyWebhook(body, headers(signWebhook(secret, old, body), old), secret)).toThrow('tolerance');
    expect(() => verifyWebhook(body, headers(), secret, { toleranceSeconds: 3600, now: now + 400_000 })).toThrow('tolerance');
    expect(() => verifyWebhook(JSON.parse(body) as never, headers(), secret)).toThrow('raw request body');
    try {
      verifyWebhook(body, headers(), 'wrong-secret-value');
    } catch (error) {
      expect(String(error)).not.toContain('wrong-secret-value');
    }
  });

  it('passes unknown event types through', () => {
    const future = JSON.stringify({ id: 'e2', type: 'device.moved', created_at: '2026-01-01T00:00:00Z', data: { x: 1 } });
    const event = verifyWebhook(future, { 'x-service-timestamp': timestamp, 'x-service-signature': signWebhook(secret, timestamp, future) }, secret);
    expect(event).toEqual(JSON.parse(future));
  });
});

describe('Node.js client: Standard Webhooks', () => {
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const previous = `whsec_${Buffer.alloc(32, 4).toString('base64')}`;
  const id = '0b7c1e55-1111-4222-8333-944455556666';
  const body = JSON.stringify({ id, type: 'alarm.created', created_at: '2026-01-01T00:00:00Z', data: { id: 'a1', severity: 'WARNING' } });
  const now = Date.now();
  const timestamp = String(Math.floor(now / 1000));
  const headers = (signature = signStandardWebhook(secret, id, timestamp, body), ts = timestamp, messageId = id) => ({
    'webhook-id': messageId,
    'webhook-timestamp': ts,
    'webhook-signature': signature,
  });

  it('signs as the format’s published vector and its reference library do', () => {
    expect(signStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
    expect(signStandardWebhook(secret, id, timestamp, body)).toBe(new ReferenceWebhook(secret).sign(id, new Date(Number(timestamp) * 1000), body));
  });

  it('verifies and parses, with several secrets and several signatures (a rotation window)', () => {
    const event = verifyStandardWebhook(Buffer.from(body), headers(), secret);
    expect(isEventType(event, 'alarm.created') && event.data.severity).toBe('WARNING');
    const both = `${signStandardWebhook(secret, id, timestamp, body)} ${signStandardWebhook(previous, id, timestamp, body)}`;
    expect(verifyStandardWebhook(body, headers(both), previous).id).toBe(id);
    expect(new StandardWebhook([previous, secret]).verify(body, new Headers(headers())).id).toBe(id);
    expect(JSON.stringify(new StandardWebhook([secret, previous]))).toBe('{"secrets":2}');
    // what the reference library signs, this helper verifies
    const reference = new ReferenceWebhook(secret).sign(id, new Date(Number(timestamp) * 1000), body);
    expect(verifyStandardWebhook(body, headers(`v2,abc ${reference}`), secret).id).toBe(id);
  });

  it('rejects a wrong secret, a changed body, a stale timestamp, a foreign id; refuses a tolerance above 300 s', () => {
    expect(() => verifyStandardWebhook(body, headers(), previous)).toThrow('signature does not match');
    expect(() => verifyStandardWebhook(`${body} `, headers(), secret)).toThrow(WebhookVerificationError);
    const old = String(Number(timestamp) - 301);
    expect(() => verifyStandardWebhook(body, headers(signStandardWebhook(secret, id, old, body), old), secret)).toThrow('tolerance');
    expect(() => verifyStandardWebhook(body, headers(), secret, { now: now + 301_000 })).toThrow('tolerance');
    expect(() => verifyStandardWebhook(body, headers(), secret, { toleranceSeconds: 301 })).toThrow(RangeError);
    // one tolerance rule for both formats (clients/node/src/signature-checks.ts): more than 0, at most 300 s
    expect(() => verifyStandardWebhook(body, headers(), secret, { toleranceSeconds: 0 })).toThrow(RangeError);
    expect(() => verifyWebhook(body, headers(), secret, { toleranceSeconds: Number.NaN })).toThrow(RangeError);
    expect(verifyStandardWebhook(body, headers(), secret, { toleranceSeconds: 0.5, now: Number(timestamp) * 1000 }).id).toBe(id);
    const other = 'e2';
    expect(() => verifyStandardWebhook(body, headers(signStandardWebhook(secret, other, timestamp, body), timestamp, other), secret)).toThrow('webhook-id does not match the body');
    expect(() => verifyStandardWebhook(body, { 'webhook-timestamp': timestamp }, secret)).toThrow('missing webhook-id');
    expect(() => verifyStandardWebhook(JSON.parse(body) as never, headers(), secret)).toThrow('raw request body');
    try {
      verifyStandardWebhook(body, headers(), previous);
    } catch (error) {
      expect(String(error)).not.toContain(previous);
    }
  });
});
