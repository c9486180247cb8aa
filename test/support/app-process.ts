import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { waitFor } from './wait';

export type BuiltApp = 'api' | 'dispatcher';

const ROOT = process.cwd();
const OUTPUT_LINES_KEPT = 200;

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * The entry point of a built app, refusing a missing or stale build (same rule as
 * scripts/ensure-build.js): a fault test against old code would prove nothing.
 */
export function builtApp(app: BuiltApp): string {
  const main = join(ROOT, 'dist', 'apps', app, 'src', 'main.js');
  const hint = 'this suite runs the built apps as processes: run `npm run build` first (`npm test` does it)';
  if (!existsSync(main)) throw new Error(`dist/apps/${app}/src/main.js is missing; ${hint}`);
  const stamp = join(ROOT, 'dist', '.build-stamp');
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  if (built < Math.max(newestSource(join(ROOT, 'apps')), newestSource(join(ROOT, 'libs')))) {
    throw new Error(`dist/ is older than the sources; ${hint}`);
  }
  return main;
}

/** A port nobody listens on right now (the child binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A built app running as a child process; its output is kept (the last lines) for failure messages. */
export class AppProcess {
  readonly exited: Promise<Exit>;
  private readonly lines: string[] = [];
  private exit: Exit | null = null;

  private constructor(
    readonly name: string,
    readonly port: number,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.keep(chunk));
    }
  }

  static spawn(name: string, app: BuiltApp, port: number, env: NodeJS.ProcessEnv): AppProcess {
    const child = spawn(process.execPath, [builtApp(app)], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    return new AppProcess(name, port, child);
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.exit === null;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** HTTP status of a GET, or null when the process does not answer. */
  async status(path: string): Promise<number | null> {
    try {
      return (await fetch(this.url(path), { signal: AbortSignal.timeout(2000) })).status;
    } catch {
      return null;
    }
  }

  /** Signals this process (by its pid) and waits for it to exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<Exit> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }

  output(): string {
    const state = this.exit ? `exited (${this.exit.signal ?? this.exit.code})` : 'running';
    return `--- ${this.name} (pid ${this.pid}, ${state}), last lines:\n${this.lines.join('\n')}`;
  }

  private keep(chunk: string): void {
    this.lines.push(...chunk.split('\n').filter((line) => line !== ''));
    if (this.lines.length > OUTPUT_LINES_KEPT) this.lines.splice(0, this.lines.length - OUTPUT_LINES_KEPT);
  }
}

/** `waitFor`, whose timeout also shows what these child processes logged. */
export async function waitShowingOutput<T>(
  processes: Iterable<AppProcess>,
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
): Promise<T> {
  try {
    return await waitFor(what, probe, timeoutMs);
  } catch (error) {
    const logs = [...processes].map((p) => p.output()).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs}`, { cause: error });
  }
}
