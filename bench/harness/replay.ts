import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReplayReply } from '../support/replay-server';
import { getJson } from './load';
import type { ResultRow } from './report';
import { median, nowMs } from './stats';
import { ServerProcess } from './server-process';

/**
 * A read's transfer floor: the bodies the api answered, served again from memory by a bare
 * node:http process (bench/support/replay-server.ts) and read by the same client code. No service
 * can answer the same bytes over HTTP for less, so it bounds what any ratio to a driver-only
 * baseline (a raw SELECT, the bare bucket SQL) can reach.
 */
export class ReplayServer {
  private constructor(
    readonly process: ServerProcess,
    private readonly base: string,
    private readonly bodies: number,
    private readonly dir: string,
  ) {}

  static async start(root: string, bodies: string[]): Promise<ReplayServer> {
    const dir = mkdtempSync(join(tmpdir(), 'cc-bench-replay-'));
    const file = join(dir, 'bodies.json');
    writeFileSync(file, JSON.stringify(bodies));
    const process = ServerProcess.start({
      name: 'replay',
      script: join(root, 'dist/bench/support/replay-server.js'),
      env: { PATH: globalThis.process.env.PATH },
      args: [file],
      ipc: true,
    });
    try {
      const ready = await process.firstMessage<ReplayReply>();
      if (ready.bodies !== bodies.length) throw new Error(`replay server holds ${ready.bodies} bodies, expected ${bodies.length}`);
      return new ReplayServer(process, `http://127.0.0.1:${ready.port}`, bodies.length, dir);
    } catch (error) {
      await process.stop();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Milliseconds to GET and parse every body once, one after another, as the read's client does. */
  async readAllMs(token: string): Promise<number> {
    const start = nowMs();
    for (let n = 0; n < this.bodies; n++) await getJson<unknown>(`${this.base}/${n}`, token);
    return nowMs() - start;
  }

  async stop(): Promise<void> {
    await this.process.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The info row of a read's transfer floor (median of `floor`) against its driver-only baseline
 * (median of `baseline`, e.g. "one raw SELECT"), saying how far the project (`projectMs`) is from it.
 */
export function transferFloorRow(scenario: string, what: string, baselineName: string, projectMs: number, floor: number[], baseline: number[]): ResultRow {
  const floorMs = median(floor);
  const baselineMs = median(baseline);
  return {
    scenario,
    metric: `transfer floor: ${what} from memory over HTTP (bare node:http, same client) vs ${baselineName}`,
    unit: 'ms',
    project: floorMs,
    baseline: baselineMs,
    ratio: floorMs / baselineMs,
    target: 'info (what HTTP and JSON.parse alone cost for the same bytes)',
    pass: null,
    status: 'info',
    note: `the api is ${(projectMs / floorMs).toFixed(2)} × this floor; the floor plus ${baselineName} is ${((floorMs + baselineMs) / baselineMs).toFixed(2)} × ${baselineName}`,
    rounds: floor.length,
    samples: { project: floor, baseline },
  };
}
