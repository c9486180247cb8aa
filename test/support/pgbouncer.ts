// Imported by globalSetup (outside jest's module mapper): relative imports only.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './app-process';
import { ADMIN_DATABASE_URL } from './test-env';

/** Debian's pgbouncer (`apt-get install pgbouncer`; .ci/run installs it). */
export const PGBOUNCER_BINARY = process.env.PGBOUNCER_BINARY ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** DATABASE_URL of `database` through the pooler (same user as the direct server URL). */
  url(database: string): string;
  /** What pgbouncer logged (its own log lines: connections, refusals). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * A PgBouncer of this run in transaction pooling mode, in front of the tests' PostgreSQL: started
 * from a config file written here, on a free port, never as the system's service. It is strict
 * on purpose: every server connection is reset (`DISCARD ALL`) whenever a transaction gives it
 * back, so whatever relies on a session outliving its transaction — a named prepared statement
 * used twice, LISTEN, a session advisory lock, SET — fails at once and every time, instead of
 * only when two clients happen to share a server connection.
 */
export async function startPgBouncer(): Promise<PgBouncer> {
  const server = new URL(ADMIN_DATABASE_URL);
  const user = decodeURIComponent(server.username || 'postgres');
  const dir = mkdtempSync(join(tmpdir(), 'coldchain-pgbouncer-'));
  // As root pgbouncer switches to the `postgres` OS user (it refuses to run as root), who must read its files.
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  chmodSync(dir, 0o755);
  const port = await freePort();
  const userlist = join(dir, 'userlist.txt');
  writeFileSync(userlist, `"${user}" "${decodeURIComponent(server.password)}"\n`, { mode: 0o644 });
  const config = join(dir, 'pgbouncer.ini');
  writeFileSync(
    config,
    [
      '[databases]',
      `* = host=${server.hostname} port=${server.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${userlist}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 1000',
      'server_reset_query = DISCARD ALL',
      'server_reset_query_always = 1',
      'server_lifetime = 3600',
      ...(asRoot ? ['user = postgres'] : []),
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const child: ChildProcess = spawn(PGBOUNCER_BINARY, [config], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.unref();
  let log = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => (log = (log + chunk).slice(-20_000)));
    (stream as unknown as { unref?: () => void })?.unref?.();
  }
  const spawnFailed = new Promise<never>((_, reject) =>
    child.once('error', (error) => reject(new Error(`pgbouncer could not be started (${error.message}): install it with \`apt-get install pgbouncer\``))),
  );
  const url = (database: string): string => {
    const through = new URL(ADMIN_DATABASE_URL);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    through.pathname = `/${database}`;
    return through.toString();
  };
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}):\n${log}`);
    const client = new Client({ connectionString: url(server.pathname.slice(1) || 'postgres') });
    client.on('error', () => undefined);
    try {
      await Promise.race([client.connect().then(() => client.query('SELECT 1')), spawnFailed]);
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline || String(error).includes('could not be started')) {
        await stop();
        throw new Error(`pgbouncer did not accept connections: ${String(error)}\n${log}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { port, url, output: () => log, stop };
}

/** The installed pgbouncer's version line, or null. */
export function pgBouncerVersion(): string | null {
  try {
    return execFileSync(PGBOUNCER_BINARY, ['--version'], { encoding: 'utf8' }).split('\n')[0];
  } catch {
    return null;
  }
}
