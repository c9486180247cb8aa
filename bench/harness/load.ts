import autocannon from 'autocannon';
import type { ServerProcess } from './server-process';
import { nowMs } from './stats';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  cpuSeconds: number;
}

/** Closed-loop load with autocannon (loopback only); CPU of the server process over the run. */
export async function cannon(server: ServerProcess, url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error(`load goes to loopback only, not ${url}`);
  const before = server.cpuSeconds();
  const result = await autocannon({ url, connections, duration: seconds, headers });
  const cpu = server.cpuSeconds() - before;
  const ok = result['2xx'];
  if (result.non2xx > 0 || result.errors > 0 || ok === 0) {
    throw new Error(`${server.name}: ${result.non2xx} non-2xx responses and ${result.errors} errors out of ${ok + result.non2xx} (${url})`);
  }
  return { requestsPerSecond: ok / result.duration, p50Ms: result.latency.p50, p99Ms: result.latency.p99, requests: ok, cpuSeconds: cpu };
}

/** GET with a bearer token; throws on anything but 200. */
export async function getJson<T>(url: string, token: string): Promise<T> {
  return JSON.parse(await getText(url, token)) as T;
}

/** The body of a GET with a bearer token, as text; throws on anything but 200. */
export async function getText(url: string, token: string): Promise<string> {
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new Error(`requests go to loopback only, not ${url}`);
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return text;
}

/** Wall time of `run`, in milliseconds, and the server's CPU seconds meanwhile. */
export async function timed(server: ServerProcess, run: () => Promise<number>): Promise<{ ms: number; cpuSeconds: number; units: number }> {
  const cpu = server.cpuSeconds();
  const start = nowMs();
  const units = await run();
  const ms = nowMs() - start;
  return { ms, cpuSeconds: server.cpuSeconds() - cpu, units };
}
