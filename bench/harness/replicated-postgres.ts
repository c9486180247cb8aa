import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, appendFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DATABASE_QUERIES } from '../../libs/database/src/database.queries';
import { freePort } from './server-process';

/** Debian's PostgreSQL 15 server binaries (initdb, pg_ctl, pg_basebackup). */
export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL primary and a streaming replica of it, both of their own (initdb in a temporary
 * directory, free loopback ports), never the machine's shared server: the read-replica test and the
 * `replica` bench scenario stop, pause and start them at will. The replica is made with
 * `pg_basebackup -R` (it streams from the primary over a replication connection).
 */
export interface ReplicatedPostgres {
  primaryPort: number;
  replicaPort: number;
  /** postgresql://postgres@127.0.0.1:<port>/<database> of the primary. */
  primaryUrl(database?: string): string;
  replicaUrl(database?: string): string;
  /** Stops replay on the replica (`pg_wal_replay_pause()`): it keeps receiving WAL, serving reads of an older state. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Waits until the replica has replayed everything the primary has written so far. */
  waitForReplay(timeoutMs?: number): Promise<void>;
  /**
   * Stops the primary's WAL writer (SIGSTOP) until the returned function is called: with
   * `synchronous_commit = off`, a commit then stays in the WAL buffers, neither written nor sent.
   */
  holdWalWriter(): Promise<() => void>;
  stopPrimary(): void;
  startPrimary(): void;
  stopReplica(): void;
  startReplica(): void;
  /** Server process ids (the postmaster and its children): to read their CPU time in /proc. */
  primaryPids(): number[];
  replicaPids(): number[];
  destroy(): void;
}

export const DATABASE = 'coldchain';

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server binary, as the `postgres` OS user when this process is root (PostgreSQL refuses root). */
function pg(binary: string, args: string[], timeoutMs = 120_000): string {
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(POSTGRES_BIN, binary), ...args]] : [join(POSTGRES_BIN, binary), args];
  try {
    return execFileSync(command as string, argv as string[], { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${binary} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
  }
}

async function query<T = Record<string, unknown>>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'coldchain-replicated-pg-'));
  chmodSync(root, 0o755);
  if (asRoot) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
    chownSync(root, Number(ids), Number(gid));
  }
  const primaryDir = join(root, 'primary');
  const replicaDir = join(root, 'replica');
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  const settings = (port: number): string =>
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${root}'`,
      'wal_level = replica',
      'max_wal_senders = 5',
      'hot_standby = on',
      // The replica answers reads during replay; a paused replay never cancels them.
      'max_standby_streaming_delay = -1',
      'max_connections = 80',
      'shared_buffers = 32MB',
      // A throwaway cluster on a shared machine: durability is not what is tested here.
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'logging_collector = off',
      '',
    ].join('\n');
  pg('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  appendFileSync(join(primaryDir, 'postgresql.conf'), settings(primaryPort));
  appendFileSync(join(primaryDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\nhost all all 127.0.0.1/32 trust\n');
  const start = (dir: string, log: string): void => void pg('pg_ctl', ['-D', dir, '-l', join(root, log), '-w', '-t', '60', 'start']);
  const stop = (dir: string): void => {
    if (existsSync(join(dir, 'postmaster.pid'))) pg('pg_ctl', ['-D', dir, '-m', 'fast', '-w', '-t', '60', 'stop']);
  };
  start(primaryDir, 'primary.log');
  const url = (port: number, database = DATABASE): string => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  await query(url(primaryPort, 'postgres'), `CREATE DATABASE ${DATABASE}`);
  pg('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replicaDir, '-R', '-X', 'stream', '-c', 'fast']);
  appendFileSync(join(replicaDir, 'postgresql.conf'), settings(replicaPort));
  start(replicaDir, 'replica.log');

  const cluster: ReplicatedPostgres = {
    primaryPort,
    replicaPort,
    primaryUrl: (database) => url(primaryPort, database),
    replicaUrl: (database) => url(replicaPort, database),
    pauseReplay: async () => void (await query(url(replicaPort), 'SELECT pg_wal_replay_pause()')),
    resumeReplay: async () => void (await query(url(replicaPort), 'SELECT pg_wal_replay_resume()')),
    async waitForReplay(timeoutMs = 30_000) {
      // The api's own probe of the primary: the end of everything inserted, written out yet or not.
      const [{ lsn }] = await query<{ lsn: string }>(url(primaryPort), DATABASE_QUERIES.walPosition.text);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const [{ done }] = await query<{ done: boolean }>(url(replicaPort), `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
        if (done) return;
        if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${lsn} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async holdWalWriter() {
      const [{ pid }] = await query<{ pid: number }>(url(primaryPort), `SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'`);
      process.kill(pid, 'SIGSTOP');
      return () => process.kill(pid, 'SIGCONT');
    },
    stopPrimary: () => stop(primaryDir),
    startPrimary: () => start(primaryDir, 'primary.log'),
    stopReplica: () => stop(replicaDir),
    startReplica: () => start(replicaDir, 'replica.log'),
    primaryPids: () => serverPids(primaryDir),
    replicaPids: () => serverPids(replicaDir),
    destroy() {
      for (const dir of [replicaDir, primaryDir]) {
        try {
          pg('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', '-t', '30', 'stop']);
        } catch {
          // Not running.
        }
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
  return cluster;
}

function serverPids(dir: string): number[] {
  const postmaster = pidOf(dir);
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', postmaster], { encoding: 'utf8' });
  return [Number(postmaster), ...children.split('\n').map((line) => Number(line.trim())).filter((pid) => pid > 0)];
}

function pidOf(dir: string): string {
  return execFileSync('head', ['-n', '1', join(dir, 'postmaster.pid')], { encoding: 'utf8' }).trim();
}
