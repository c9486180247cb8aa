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

/**
 * CPU seconds spent so far by the local PostgreSQL server and RabbitMQ broker: every `postgres`
 * process plus what the postmaster has reaped (backends that already exited, e.g. the baseline's
 * short-lived connections), and `beam.smp`. Null when neither runs on this machine.
 */
export function servicesCpuSeconds(): number | null {
  const stats = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is ProcStat => s !== null && (s.comm === 'postgres' || s.comm === 'beam.smp'));
  if (stats.length === 0) return null;
  const postgresPids = new Set(stats.filter((s) => s.comm === 'postgres').map((s) => s.pid));
  let ticks = 0;
  for (const s of stats) {
    ticks += s.own;
    if (s.comm === 'postgres' && !postgresPids.has(s.ppid)) ticks += s.reaped; // the postmaster
  }
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
