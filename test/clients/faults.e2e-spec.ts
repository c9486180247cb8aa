import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startListeningApi, type TestApi } from '../support/api';
import { FaultProxy, type Fault } from '../support/fault-proxy';
import { createTenant, type Tenant } from '../support/fixtures';
import * as node from '../../clients/node/src/index';

/**
 * The shared fault suite of the client libraries (issue 29): the retry and timeout rules written
 * once in clients/README.md, driven by the same cases against the Node.js, Python and .NET
 * clients. Each client makes an ordinary call (list accounts, create a carrier, download a
 * report) through test/support/fault-proxy.ts, which sits in front of the real api and injects
 * one fault: a dropped connection, a lost response, a 502/503/504 once, a 429 with Retry-After, a
 * 409 idempotency_request_in_progress, another 4xx or a 500 (never retried), a body that stalls
 * after 10 bytes. The drivers (in-process for Node, clients/python/tests/fault_driver.py,
 * `Coldchain.Client.Tests.exe --fault`) print the outcome in the same words, so one expectation
 * holds for all three. Clients run with a 3 s timeout (short enough for the stall cases, long enough for a loaded machine), 2 retries and a 10–50 ms backoff.
 */
const ROOT = process.cwd();
const BIN = join(ROOT, 'clients', 'dotnet', 'bin');
const has = (command: string): boolean => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
const MONO = has('mono') && has('mcs');
if (!MONO) console.warn('SKIPPED the .NET part of test/clients/faults.e2e-spec.ts: mono/mcs are not installed (apt-get install -y $(cat clients/dotnet/ci-packages.txt)).');

interface Outcome {
  ok: boolean;
  status?: number | null;
  request_id?: string | null;
  replayed?: boolean;
  idempotency_key?: string | null;
  rate_limit_remaining?: number | null;
  error?: string;
  code?: string | null;
  id?: string;
  count?: number;
  bytes?: number;
}

type Operation = ['list'] | ['create', string] | ['download', string];

interface Env {
  COLDCHAIN_BASE_URL: string;
  COLDCHAIN_CLIENT_ID: string;
  COLDCHAIN_CLIENT_SECRET: string;
}

/** The Node.js driver, in this process: the same call and the same words as the other two. */
async function nodeDriver(operation: Operation, env: Env): Promise<Outcome> {
  const client = new node.ColdchainClient({
    baseUrl: env.COLDCHAIN_BASE_URL,
    clientId: env.COLDCHAIN_CLIENT_ID,
    clientSecret: env.COLDCHAIN_CLIENT_SECRET,
    timeoutMs: 3000,
    maxRetries: 2,
    backoffBaseMs: 10,
    backoffMaxMs: 50,
    userAgent: 'fault-suite/1',
  });
  const outcome = (info: node.ResponseInfo, extra: Partial<Outcome>): Outcome => ({
    ok: true,
    status: info.status,
    request_id: info.requestId,
    replayed: info.idempotentReplayed,
    idempotency_key: info.idempotencyKey ?? null,
    rate_limit_remaining: info.rateLimitRemaining ?? null,
    ...extra,
  });
  try {
    if (operation[0] === 'list') {
      const page = await client.accounts.list().firstPage();
      return outcome(page.lastResponse, { count: page.data.length });
    }
    if (operation[0] === 'create') {
      const carrier = await client.carriers.create({ name: operation[1], mode: 'road' } as node.CreateCarrier);
      return outcome(carrier.lastResponse, { id: carrier.id });
    }
    const dir = mkdtempSync(join(tmpdir(), 'fault-suite-'));
    try {
      const written = await client.reports.downloadTo(operation[1], join(dir, 'report'));
      return outcome(written.lastResponse, { bytes: written.bytes });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } catch (error) {
    const families: Array<[new (...args: never[]) => Error, string]> = [
      [node.TimeoutError, 'timeout'],
      [node.ConnectionError, 'connection'],
      [node.BadRequestError, 'bad_request'],
      [node.AuthenticationError, 'authentication'],
      [node.PermissionDeniedError, 'permission'],
      [node.NotFoundError, 'not_found'],
      [node.ConflictError, 'conflict'],
      [node.UnprocessableEntityError, 'unprocessable'],
      [node.RateLimitError, 'rate_limit'],
      [node.ServerError, 'server'],
    ];
    const family = families.find(([type]) => error instanceof type)?.[1] ?? 'other';
    const api = error instanceof node.ApiError ? error : undefined;
    return { ok: false, error: family, status: api?.status ?? null, code: api?.code ?? null };
  }
}

/** Runs a driver program; resolves the JSON line it prints. */
function runDriver(command: string, args: string[], env: Env, cwd: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // A client that hangs is a failure of the suite, not a hung test run.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const line = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${command} ${args.join(' ')} exited ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      else resolve(JSON.parse(line) as Outcome);
    });
  });
}

/** Each client's version, from its one source: the User-Agent must carry it. */
const escape = (text: string): string => text.replace(/[.+]/g, '\\$&');
const VERSIONS = {
  node: escape((JSON.parse(readFileSync(join(ROOT, 'clients', 'node', 'package.json'), 'utf8')) as { version: string }).version),
  python: escape(/__version__ = "([^"]+)"/.exec(readFileSync(join(ROOT, 'clients', 'python', 'coldchain_client', '_version.py'), 'utf8'))![1]),
  dotnet: escape(/<Version>([^<]+)<\/Version>/.exec(readFileSync(join(ROOT, 'clients', 'dotnet', 'Coldchain.Client.csproj'), 'utf8'))![1]),
};

const CLIENTS: Array<{ name: string; userAgent: RegExp; run: (operation: Operation, env: Env) => Promise<Outcome> }> = [
  { name: 'node', userAgent: new RegExp(`^coldchain-node/${VERSIONS.node} node/\\S+ fault-suite/1$`), run: nodeDriver },
  {
    name: 'python',
    userAgent: new RegExp(`^coldchain-client-python/${VERSIONS.python} Python/\\S+ fault-suite/1$`),
    run: (operation, env) => runDriver('python3', ['fault_driver.py', ...operation], env, join(ROOT, 'clients', 'python', 'tests')),
  },
  ...(MONO
    ? [
        {
          name: 'dotnet',
          userAgent: new RegExp(`^coldchain-dotnet/${VERSIONS.dotnet} fault-suite/1$`),
          run: (operation: Operation, env: Env) => runDriver('mono', [join(BIN, 'Coldchain.Client.Tests.exe'), '--fault', ...operation], env, ROOT),
        },
      ]
    : []),
];

const ACCOUNTS = /\/accounts\/$/;
const CARRIERS = /\/carriers\/$/;
const DOWNLOAD = /\/reports\/[^/]+\/download\/$/;
const problem = (status: number, code: string) => ({ type: `https://coldchain.example.com/problems/${code}`, title: code, status, code, detail: `injected ${code}` });

describe('client libraries: the shared fault suite (clients/README.md, retries and timeouts)', () => {
  let api: TestApi & { base: string };
  let tenant: Tenant;
  let proxy: FaultProxy;
  let env: Env;
  let direct: node.ColdchainClient;

  beforeAll(async () => {
    if (MONO) {
      const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'clients', 'build-dotnet.js'), '--quiet'], { cwd: ROOT, encoding: 'utf8' });
      if (build.status !== 0) throw new Error(`build-dotnet failed:\n${build.stderr}`);
    }
    api = await startListeningApi();
    tenant = await createTenant(api.app, undefined, 'Fault suite');
    proxy = new FaultProxy({ host: '127.0.0.1', port: Number(new URL(api.base).port) });
    await proxy.start();
    env = { COLDCHAIN_BASE_URL: proxy.base, COLDCHAIN_CLIENT_ID: tenant.credential.client_id, COLDCHAIN_CLIENT_SECRET: tenant.credential.client_secret };
    direct = new node.ColdchainClient({ baseUrl: api.base, clientId: tenant.credential.client_id, clientSecret: tenant.credential.client_secret });
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await api?.close();
  });

  beforeEach(() => proxy.reset());

  describe.each(CLIENTS)('$name client', (client) => {
    /** Arms the fault, makes the call, returns the outcome and the attempts that reached the proxy. */
    const drive = async (method: string, path: RegExp, fault: Fault | null, operation: Operation, times = 1) => {
      if (fault) proxy.arm(method, path, fault, times);
      const started = Date.now();
      const outcome = await client.run(operation, env);
      return { outcome, attempts: proxy.matching(method, path), elapsed: Date.now() - started };
    };

    it('retries a connection dropped before the request arrived, and sends its own User-Agent with the caller’s appended', async () => {
      const { outcome, attempts } = await drive('GET', ACCOUNTS, { kind: 'reset' }, ['list']);
      expect(outcome).toMatchObject({ ok: true, status: 200, count: 1 });
      expect(attempts).toHaveLength(2);
      expect(attempts[1].headers['user-agent']).toMatch(client.userAgent);
    });

    it('answers with the response metadata: request id, status, rate limit', async () => {
      const { outcome } = await drive('GET', ACCOUNTS, null, ['list']);
      expect(outcome).toMatchObject({ ok: true, status: 200, replayed: false, request_id: expect.any(String) });
      expect(outcome.rate_limit_remaining).toEqual(expect.any(Number));
    });

    it('a create whose response is lost is repeated with the same Idempotency-Key: the record exists once, the answer is a replay', async () => {
      const name = `Lost response ${client.name} ${randomUUID()}`;
      const { outcome, attempts } = await drive('POST', CARRIERS, { kind: 'lose-response' }, ['create', name]);
      expect(outcome).toMatchObject({ ok: true, status: 201, replayed: true, id: expect.any(String) });
      expect(attempts).toHaveLength(2);
      const keys = attempts.map((a) => a.headers['idempotency-key']);
      expect(keys[0]).toEqual(expect.any(String));
      expect(keys[1]).toBe(keys[0]);
      expect(outcome.idempotency_key).toBe(keys[0]);
      const carriers = await direct.carriers.list().toArray();
      expect(carriers.filter((c) => c.name === name)).toHaveLength(1);
    });

    it.each([502, 503, 504])('retries a %i once and succeeds', async (status) => {
      const { outcome, attempts } = await drive('GET', ACCOUNTS, { kind: 'answer', status, body: `<html>${status} from a gateway</html>` }, ['list']);
      expect(outcome).toMatchObject({ ok: true, status: 200 });
      expect(attempts).toHaveLength(2);
    });

    it('retries a 503 on a create with the same Idempotency-Key', async () => {
      const { outcome, attempts } = await drive('POST', CARRIERS, { kind: 'answer', status: 503, body: problem(503, 'service_unavailable') }, ['create', `503 ${client.name} ${randomUUID()}`]);
      expect(outcome).toMatchObject({ ok: true, status: 201, replayed: false });
      expect(attempts).toHaveLength(2);
      expect(attempts[1].headers['idempotency-key']).toBe(attempts[0].headers['idempotency-key']);
    });

    it('waits out a 429’s Retry-After, then succeeds', async () => {
      const { outcome, attempts } = await drive('GET', ACCOUNTS, { kind: 'answer', status: 429, headers: { 'retry-after': '1' }, body: problem(429, 'rate_limited') }, ['list']);
      expect(outcome).toMatchObject({ ok: true, status: 200 });
      expect(attempts).toHaveLength(2);
      expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(950);
    });

    it('retries a 409 idempotency_request_in_progress after its Retry-After, with the same key', async () => {
      const { outcome, attempts } = await drive(
        'POST',
        CARRIERS,
        { kind: 'answer', status: 409, headers: { 'retry-after': '1' }, body: problem(409, 'idempotency_request_in_progress') },
        ['create', `In progress ${client.name} ${randomUUID()}`],
      );
      expect(outcome).toMatchObject({ ok: true, status: 201 });
      expect(attempts).toHaveLength(2);
      expect(attempts[1].headers['idempotency-key']).toBe(attempts[0].headers['idempotency-key']);
      expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(950);
    });

    it.each([
      [400, 'validation_failed', 'bad_request'],
      [403, 'insufficient_scope', 'permission'],
      [404, 'not_found', 'not_found'],
      [409, 'shipment_not_active', 'conflict'],
      [422, 'idempotency_key_reused', 'unprocessable'],
      [500, 'internal_error', 'server'],
    ])('never retries a %i %s: one attempt, a typed error', async (status, code, family) => {
      const { outcome, attempts } = await drive('GET', ACCOUNTS, { kind: 'answer', status, body: problem(status, code) }, ['list']);
      expect(outcome).toEqual({ ok: false, error: family, status, code });
      expect(attempts).toHaveLength(1);
    });

    it('bounds the attempts: a 503 that keeps coming is raised after max retries', async () => {
      const { outcome, attempts } = await drive('GET', ACCOUNTS, { kind: 'answer', status: 503, body: problem(503, 'service_unavailable') }, ['list'], 10);
      expect(outcome).toEqual({ ok: false, error: 'server', status: 503, code: 'service_unavailable' });
      expect(attempts).toHaveLength(3);
    });

    it('a JSON body that stalls after 10 bytes times out and is retried', async () => {
      const { outcome, attempts } = await drive('GET', ACCOUNTS, { kind: 'stall-body', stallAfter: 10 }, ['list']);
      expect(outcome).toMatchObject({ ok: true, status: 200, count: 1 });
      expect(attempts).toHaveLength(2);
    });

    it('a download whose body stalls after 10 bytes fails with a timeout instead of hanging', async () => {
      const body = Buffer.alloc(1000, 'x');
      const { outcome, attempts, elapsed } = await drive(
        'GET',
        DOWNLOAD,
        { kind: 'answer', status: 200, headers: { 'content-type': 'text/csv', 'content-disposition': 'attachment; filename="r.csv"' }, body, stallAfter: 10 },
        ['download', randomUUID()],
      );
      expect(outcome).toMatchObject({ ok: false, error: 'timeout' });
      expect(attempts).toHaveLength(1);
      expect(elapsed).toBeLessThan(15_000);
    });
  });
});
