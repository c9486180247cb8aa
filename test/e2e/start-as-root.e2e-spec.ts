import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../support/app-process';
import { uniqueName } from '../support/test-env';
import { waitFor } from '../support/wait';

const repository = process.cwd();
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * `npm start` as root from a directory other users cannot enter. PostgreSQL refuses to run as
 * root, so the embedded cluster runs as the `postgres` OS user, who cannot reach a project inside
 * a 0700 directory: the cluster's binaries and data must live elsewhere. Runs only as root (CI).
 */
(asRoot ? describe : describe.skip)('npm start as root in a 0700 directory', () => {
  let home: string;
  let project: string;
  let child: ChildProcess | null = null;
  let output = '';
  let clusterHome: string | null = null;

  const start = (env: Record<string, string>): ChildProcess => {
    const { DATABASE_URL: _ignored, ...inherited } = process.env;
    const started = spawn(process.execPath, ['scripts/start.js'], { cwd: project, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return started;
  };
  const exited = (process: ChildProcess): Promise<number | null> =>
    process.exitCode !== null ? Promise.resolve(process.exitCode) : new Promise((resolve) => process.once('exit', (code) => resolve(code)));

  beforeAll(() => {
    home = mkdtempSync(path.join(tmpdir(), 'coldchain-root-'));
    project = path.join(home, 'project');
    // The built service as a newcomer has it, hard-linked (the same file system) to stay cheap.
    execFileSync('mkdir', [project]);
    execFileSync('cp', ['-al', 'package.json', 'scripts', 'dist', 'node_modules', project], { cwd: repository });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
    if (clusterHome) rmSync(clusterHome, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  it('starts the embedded PostgreSQL where its OS user can reach it, serves tokens, and stops cleanly', async () => {
    expect(statSync(home).mode & 0o777).toBe(0o700);
    const [port, opsPort, dispatcherPort, databasePort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    child = start({
      PORT: String(port),
      OPS_PORT: String(opsPort),
      DISPATCHER_PORT: String(dispatcherPort),
      EMBEDDED_POSTGRES_PORT: String(databasePort),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      AMQP_PREFIX: uniqueName('cc_root'),
      LOG_LEVEL: 'warn',
    });
    const running = child;
    await waitFor(
      'the api to answer /health/live',
      async () => {
        if (running.exitCode !== null) throw new Error(`npm start exited ${running.exitCode}:\n${output}`);
        return (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => null))?.ok;
      },
      120_000,
    );
    clusterHome = path.dirname(/initialising embedded PostgreSQL in (\S+)/.exec(output)?.[1] ?? '/nonexistent/data');
    expect(clusterHome).toMatch(/^\/var\/tmp\/coldchain-postgres-[0-9a-f]{12}$/);
    expect(statSync(clusterHome).mode & 0o777).toBe(0o755);

    // The demo credential it printed gets a token: the database behind it works.
    const clientId = /client_id:\s+(\S+)/.exec(output)?.[1];
    const clientSecret = /client_secret:\s+(\S+)/.exec(output)?.[1];
    const token = await fetch(`http://127.0.0.1:${port}/api/public/v1/oauth/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId ?? '', client_secret: clientSecret ?? '' }),
    });
    expect(token.status).toBe(200);
    expect(output).not.toMatch(/EACCES|\n\s+at /);

    running.kill('SIGTERM');
    expect(await exited(running)).toBe(0);
    expect(output).toContain('[start] stopping (SIGTERM)');
  }, 180_000);

  it('explains itself in one sentence, without a stack trace, when the cluster cannot be placed', async () => {
    output = '';
    const failing = start({ EMBEDDED_POSTGRES_HOME: path.join(project, 'package.json', 'cluster'), EMBEDDED_POSTGRES_PORT: String(await freePort()), LOG_LEVEL: 'warn' });
    expect(await exited(failing)).toBe(1);
    expect(output).toMatch(/\[start\] cannot start: running as root, the embedded PostgreSQL must live where its "postgres" OS user can reach it.*EMBEDDED_POSTGRES_HOME/);
    expect(output).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('says in one line what to do when EMBEDDED_POSTGRES_HOME is where the postgres OS user cannot reach (no initdb EACCES stack trace)', async () => {
    output = '';
    // Root can create it (inside the 0700 directory); the `postgres` user cannot enter it.
    const unreachable = path.join(home, 'cluster');
    const failing = start({ EMBEDDED_POSTGRES_HOME: unreachable, EMBEDDED_POSTGRES_PORT: String(await freePort()), LOG_LEVEL: 'warn' });
    expect(await exited(failing)).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines).toEqual([
      `[start] cannot start: the embedded PostgreSQL runs as the "postgres" OS user, who cannot enter ${home} on the way to EMBEDDED_POSTGRES_HOME=${unreachable}; set EMBEDDED_POSTGRES_HOME to a directory every user can enter (such as /var/tmp/coldchain-postgres), or set DATABASE_URL to a PostgreSQL server`,
    ]);
    expect(output).not.toMatch(/EACCES|\n\s+at /);
  }, 120_000);
});
