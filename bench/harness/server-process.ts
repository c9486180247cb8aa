import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { cpuSeconds, peakRssMb, rssMb } from './proc-stats';
import { sleep } from './stats';

const OUTPUT_KEPT = 8192;

export interface StartOptions {
  name: string;
  script: string;
  env: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  /** Arguments after the script. */
  args?: string[];
  /** Opens an IPC channel (process.send in the child). */
  ipc?: boolean;
}

/** A free loopback TCP port (bound then released: a tiny race, acceptable on a bench machine). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A node child process the harness started and will stop: keeps the tail of its output for error
 * reports and reads its CPU time and peak RSS from /proc.
 */
export class ServerProcess {
  private output = '';
  private exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private readonly exit: Promise<void>;
  private lastPeakMb = 0;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exited = { code, signal };
        resolve();
      }),
    );
  }

  static start(options: StartOptions): ServerProcess {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])], {
      env: options.env,
      stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
    });
    return new ServerProcess(options.name, child);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} has no pid`);
    return this.child.pid;
  }

  get running(): boolean {
    return this.exited === null;
  }

  /** The last lines it printed, for error messages. */
  tail(): string {
    return this.output.trim().split('\n').slice(-25).join('\n');
  }

  assertRunning(): void {
    if (!this.exited) return;
    throw new Error(`${this.name} exited (${this.exited.signal ?? this.exited.code}):\n${this.tail()}`);
  }

  cpuSeconds(): number {
    this.assertRunning();
    return cpuSeconds(this.pid);
  }

  /** VmHWM; remembered, so that it can still be reported after the process has stopped. */
  peakRssMb(): number {
    if (this.running) this.lastPeakMb = Math.max(this.lastPeakMb, peakRssMb(this.pid));
    return this.lastPeakMb;
  }

  /** Current RSS (VmRSS), MB. */
  rssMb(): number {
    this.assertRunning();
    return rssMb(this.pid);
  }

  /** Polls an HTTP URL until it answers 200 (the process must stay alive meanwhile). */
  async waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      this.assertRunning();
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`${this.name} did not answer 200 on ${url} within ${timeoutMs} ms:\n${this.tail()}`);
  }

  /** The first IPC message the process sends (a child's "ready"); fails if it exits first. */
  firstMessage<T>(): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.child.once('message', (message: T) => resolve(message));
      this.child.once('exit', () => reject(new Error(`${this.name} exited:\n${this.tail()}`)));
    });
  }

  send(message: unknown): void {
    this.child.send?.(message as Parameters<NonNullable<ChildProcess['send']>>[0]);
  }

  /** SIGTERM (graceful drain), then SIGKILL after the grace period. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.peakRssMb();
    this.child.kill('SIGTERM');
    const killed = await Promise.race([this.exit.then(() => false), sleep(graceMs).then(() => true)]);
    if (killed && this.running) {
      this.child.kill('SIGKILL');
      await this.exit;
    }
  }

  /** Waits for the process to end by itself (e.g. after an IPC request to exit). */
  async waitForExit(timeoutMs: number): Promise<boolean> {
    return Promise.race([this.exit.then(() => true), sleep(timeoutMs).then(() => false)]);
  }
}
