import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | null = null;

/** Kernel clock ticks per second (USER_HZ), the unit of utime/stime in /proc/<pid>/stat. */
function ticksPerSecond(): number {
  if (clockTicks === null) {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    clockTicks = Number.isFinite(value) && value > 0 ? value : 100;
  }
  return clockTicks;
}

/** utime + stime of a live process, in seconds (its threads included: libuv pool, GC, JIT). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

/** Peak resident set size (VmHWM) of a live process, in MB (2^20 bytes). */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/** Current resident set size (VmRSS) of a live process, in MB (2^20 bytes). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/** Resident set size now of a live process, in MB, and how many file descriptors it holds (sockets included). */
export function residentNow(pid: number): { rssMb: number; fds: number } {
  return { rssMb: rssMb(pid), fds: readdirSync(`/proc/${pid}/fd`).length };
}

interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, ticks. */
  own: number;
  /** cutime + cstime: children it has reaped, ticks. */
  reaped: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, comm, ppid: Number(fields[1]), own: Number(fields[11]) + Number(fields[12]), reaped: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return null; // exited meanwhile
  }
}

/** `/proc/<pid>/cmdline` with NULs as spaces, or '' when the process has exited. */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/**
 * Background processes of the PostgreSQL server that work for every database (their CPU is
 * shared, the bench's writes among others'): the WAL writer, the checkpointer, the background
 * writer and the autovacuum launcher.
 */
const SHARED_POSTGRES = /: (walwriter|checkpointer|background writer|autovacuum launcher)\b/;

/** Names this run's database, so that only its PostgreSQL backends are counted (`null`: every postgres process). */
let benchDatabase: string | null = null;

export function attributeServicesTo(databaseName: string | null): void {
  benchDatabase = databaseName;
}

/** The postmaster of the bench's own cluster (bench/harness/own-cluster.ts): then every process of that cluster is the bench's. */
let benchPostmaster: number | null = null;

export function attributeServicesToCluster(postmasterPid: number | null): void {
  benchPostmaster = postmasterPid;
}

export const clusterAttributed = (): boolean => benchPostmaster !== null;

/** CPU ticks per process of one service at one moment: deltas are taken per pid. */
export type CpuSnapshot = ReadonlyMap<number, number>;

export interface ServicesCpuSnapshot {
  /** Backends (and autovacuum workers) serving the bench's database, plus the shared background writers. */
  postgres: CpuSnapshot;
  /** `beam.smp`: the broker is shared with every other user of it on this machine (no per-vhost CPU exists). */
  rabbitmq: CpuSnapshot;
}

/**
 * What the local PostgreSQL server and RabbitMQ broker have spent so far, per process. With the
 * bench's own cluster (`attributeServicesToCluster`) PostgreSQL is exactly that cluster: its
 * postmaster, what it reaped (backends that exited count too) and its live children. With a
 * database named (`attributeServicesTo`), PostgreSQL counts only the backends whose command line
 * names that database (`postgres: <cluster>: <user> <database> <host> …`, autovacuum workers
 * `… autovacuum worker <database>`) and the shared background writers, so other databases' work
 * on a shared machine does not count; a backend that starts and exits between two snapshots is
 * missed (the apps under test keep pooled connections). Without one it counts every postgres
 * process plus what the postmaster reaped, as before. Null when neither service runs here.
 */
export function servicesCpuSnapshot(): ServicesCpuSnapshot | null {
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is ProcStat => s !== null && (s.comm === 'postgres' || s.comm === 'beam.smp'));
  if (stats.length === 0) return null;
  const postgres = new Map<number, number>();
  const rabbitmq = new Map<number, number>();
  const postgresPids = new Set(stats.filter((s) => s.comm === 'postgres').map((s) => s.pid));
  for (const s of stats) {
    if (s.comm === 'beam.smp') {
      rabbitmq.set(s.pid, s.own);
      continue;
    }
    if (benchPostmaster !== null) {
      // The bench's own cluster: the postmaster (with the backends it has reaped) and its children.
      if (s.pid === benchPostmaster) postgres.set(s.pid, s.own + s.reaped);
      else if (s.ppid === benchPostmaster) postgres.set(s.pid, s.own);
      continue;
    }
    if (benchDatabase === null) {
      postgres.set(s.pid, s.own + (postgresPids.has(s.ppid) ? 0 : s.reaped)); // the postmaster: + reaped backends
      continue;
    }
    const cmdline = commandLine(s.pid);
    const words = cmdline.split(/\s+/);
    if (SHARED_POSTGRES.test(cmdline) || words.includes(benchDatabase)) postgres.set(s.pid, s.own);
  }
  return { postgres, rabbitmq };
}

/**
 * PostgreSQL + RabbitMQ CPU seconds spent since the first call, as one growing counter (the soak's
 * windows take differences of it): per-pid deltas between successive snapshots, so a backend that
 * exits never makes it go back. Null when neither service runs here.
 */
let lastServicesSnapshot: ServicesCpuSnapshot | null = null;
let servicesSecondsSoFar = 0;
export function servicesCpuSeconds(): number | null {
  const now = servicesCpuSnapshot();
  if (now === null) return null;
  if (lastServicesSnapshot !== null) {
    servicesSecondsSoFar += cpuBetween(lastServicesSnapshot.postgres, now.postgres) + cpuBetween(lastServicesSnapshot.rabbitmq, now.rabbitmq);
  }
  lastServicesSnapshot = now;
  return servicesSecondsSoFar;
}

/** CPU seconds spent between two snapshots of one service (processes new since `before` count from zero). */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += Math.max(0, now - (before.get(pid) ?? 0));
  return ticks / ticksPerSecond();
}

/** utime + stime of each of these processes that is still running, in seconds (exited ones are left out). */
export function cpuSecondsByPid(pids: readonly number[]): Map<number, number> {
  const result = new Map<number, number>();
  for (const pid of pids) {
    const stat = readStat(pid);
    if (stat) result.set(pid, stat.own / ticksPerSecond());
  }
  return result;
}

/** What processes read by `cpuSecondsByPid` spent between two readings; one that started meanwhile counts whole, one that exited is lost. */
export function cpuSecondsSince(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
