import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withAdmin } from './bench-database';
import type { Cleanup } from './cleanup';
import { freePort } from './server-process';

/** Where Debian/Ubuntu put PostgreSQL 15's server binaries (BENCH_PG_BIN overrides). */
export const DEFAULT_PG_BIN = '/usr/lib/postgresql/15/bin';

/**
 * The settings the bench's own cluster runs with: a production-shaped small server (durable
 * commits, full page writes, autovacuum on, WAL sized so that checkpoints are timed, not forced by
 * the load), not the shared development server's. Written in BENCHMARKS.md ("Its own PostgreSQL").
 */
export const PRODUCTION_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['max_connections', '200'],
  ['shared_buffers', '512MB'],
  ['effective_cache_size', '2GB'],
  ['work_mem', '8MB'],
  ['maintenance_work_mem', '128MB'],
  ['wal_level', 'replica'],
  ['wal_buffers', '16MB'],
  ['synchronous_commit', 'on'],
  ['fsync', 'on'],
  ['full_page_writes', 'on'],
  ['wal_compression', 'lz4'],
  ['max_wal_size', '2GB'],
  ['min_wal_size', '256MB'],
  ['checkpoint_timeout', '15min'],
  ['checkpoint_completion_target', '0.9'],
  ['random_page_cost', '1.1'],
  ['autovacuum', 'on'],
  ['autovacuum_naptime', '15s'],
  ['track_io_timing', 'on'],
];

export interface OwnCluster {
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  adminUrl: string;
  port: number;
  dataDir: string;
  /** The postmaster: every process of the cluster is it or one of its children. */
  postmasterPid: number;
  version: string;
}

/** postgresql.conf lines for these settings. */
export function settingsFile(settings: ReadonlyArray<readonly [string, string]>, port: number, socketDir: string): string {
  const lines = [...settings, ['port', String(port)], ['listen_addresses', "'127.0.0.1'"], ['unix_socket_directories', `'${socketDir}'`]] as const;
  return `# written by the bench harness (bench/harness/own-cluster.ts)\n${lines.map(([name, value]) => `${name} = ${/^[\d.]+[A-Za-z]*$|^'|^(on|off)$/.test(value) ? value : `'${value}'`}`).join('\n')}\n`;
}

/**
 * initdb into a fresh temporary directory, start it on a free port with PRODUCTION_SETTINGS, and
 * register its stop and removal with `cleanup` (runs at the end, on failure and on SIGINT/SIGTERM).
 * PostgreSQL refuses to run as root: then the server runs as the `postgres` system user, which owns
 * the directory.
 */
export async function startOwnCluster(cleanup: Cleanup, log: (message: string) => void, bin = process.env.BENCH_PG_BIN || DEFAULT_PG_BIN): Promise<OwnCluster> {
  if (!existsSync(join(bin, 'initdb'))) throw new Error(`no ${join(bin, 'initdb')}: install PostgreSQL 15's server (or set BENCH_PG_BIN)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'cc-bench-pg-'));
  cleanup.add(`remove ${dataDir}`, () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })));
  const owner = process.getuid?.() === 0 ? systemUser('postgres') : null;
  if (owner) chownSync(dataDir, owner.uid, owner.gid);
  const run = (tool: string, args: string[]): string => {
    const result = spawnSync(join(bin, tool), args, { encoding: 'utf8', ...(owner ? { uid: owner.uid, gid: owner.gid } : {}), cwd: dataDir });
    if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}${tool === 'pg_ctl' ? tail(join(dataDir, 'server.log')) : ''}`);
    return result.stdout;
  };
  const port = await freePort();
  log(`own PostgreSQL cluster: initdb ${dataDir}, port ${port}`);
  run('initdb', ['-D', join(dataDir, 'data'), '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const statementsReport = process.env.BENCH_PG_STATEMENTS;
  const settings = [
    ...PRODUCTION_SETTINGS,
    ...(statementsReport ? [['shared_preload_libraries', 'pg_stat_statements'] as const, ['pg_stat_statements.track', 'all'] as const] : []),
    ...extraSettings(process.env.BENCH_PG_SETTINGS),
  ];
  writeFileSync(join(dataDir, 'data', 'postgresql.conf'), `${readFileSync(join(dataDir, 'data', 'postgresql.conf'), 'utf8')}\n${settingsFile(settings, port, dataDir)}`);
  run('pg_ctl', ['-D', join(dataDir, 'data'), '-l', join(dataDir, 'server.log'), '-w', '-t', '60', 'start']);
  const serverLogCopy = process.env.BENCH_PG_LOG;
  if (serverLogCopy) cleanup.add(`copy the server log to ${serverLogCopy}`, () => Promise.resolve(copyFileSync(join(dataDir, 'server.log'), serverLogCopy)));
  // Registered after the removal: cleanup runs steps in reverse, so the server stops first.
  cleanup.add(`stop the bench's PostgreSQL (port ${port})`, () => Promise.resolve(void run('pg_ctl', ['-D', join(dataDir, 'data'), '-m', 'fast', '-w', '-t', '60', 'stop'])));
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  if (statementsReport) {
    await withAdmin(adminUrl, (client) => client.query('CREATE EXTENSION pg_stat_statements'));
    cleanup.add(`write the statements report ${statementsReport}`, () => writeStatementsReport(adminUrl, statementsReport));
  }
  const postmasterPid = Number(readFileSync(join(dataDir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
  return { adminUrl, port, dataDir, postmasterPid, version };
}

/**
 * BENCH_PG_SETTINGS="name=value;name=value": settings added for one profiling run (auto_explain,
 * statement logging); BENCH_PG_LOG=<file> keeps the server log. Figures from such runs are not
 * comparable with the production-shaped ones.
 */
export function extraSettings(text: string | undefined): Array<readonly [string, string]> {
  if (!text) return [];
  return text.split(';').filter((part) => part.trim() !== '').map((part) => {
    const at = part.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_PG_SETTINGS: expected name=value, got "${part}"`);
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const;
  });
}

/**
 * BENCH_PG_STATEMENTS=<file>: where the bench cluster's time went, statement by statement
 * (pg_stat_statements, every database of the run), written when the run ends. For profiling only:
 * the extension's own bookkeeping costs a few per cent.
 */
async function writeStatementsReport(adminUrl: string, file: string): Promise<void> {
  const rows = await withAdmin(adminUrl, (client) =>
    client.query<{ calls: string; rows: string; total_ms: string; mean_ms: string; plan_ms: string; hits: string; query: string }>(
      `SELECT calls, rows, round(total_exec_time::numeric, 1) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms,
              round(total_plan_time::numeric, 1) AS plan_ms, shared_blks_hit + shared_blks_read AS hits, left(regexp_replace(query, '\\s+', ' ', 'g'), 300) AS query
         FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 60`,
    ),
  );
  const lines = rows.rows.map((row) => [row.total_ms, row.plan_ms, row.calls, row.rows, row.mean_ms, row.hits, row.query].join('\t'));
  writeFileSync(file, `total_ms\tplan_ms\tcalls\trows\tmean_ms\tbuffers\tquery\n${lines.join('\n')}\n`);
}

function systemUser(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

function tail(file: string): string {
  try {
    return `\n${readFileSync(file, 'utf8').split('\n').slice(-20).join('\n')}`;
  } catch {
    return '';
  }
}
