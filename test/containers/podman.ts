import { execFile } from 'node:child_process';
import type { ContainerRun } from './stack';

/**
 * podman as the container test drives it: the runc runtime (crun fails on this host's hybrid
 * cgroup layout), cgroupfs (no systemd), the host network, and the same ulimits as the image build.
 */
const GLOBAL = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];
export const LIMITS = ['--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=4096:4096'];

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman …`; never throws for a non-zero exit (the caller checks `code`). */
export function podman(args: string[], timeoutMs = 120_000): Promise<Result> {
  return new Promise((resolve) => {
    execFile('podman', [...GLOBAL, ...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Like podman(), but a non-zero exit is an error carrying the command's output. */
export async function podmanOk(args: string[], timeoutMs?: number): Promise<string> {
  const result = await podman(args, timeoutMs);
  if (result.code !== 0) throw new Error(`podman ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** `podman run` arguments for a compose service as stack.ts describes it (before the image). */
export function runArguments(run: ContainerRun, name: string): string[] {
  const args = ['--name', name, '--network', 'host', ...LIMITS, '--stop-timeout', String(run.stopGraceSeconds)];
  // podman's --read-only adds tmpfs mounts of its own (/tmp, /var/tmp, /run); Docker's does not:
  // only what the compose file declares is writable.
  if (run.readOnly) args.push('--read-only', '--read-only-tmpfs=false');
  for (const path of run.tmpfs) args.push('--tmpfs', path);
  for (const volume of run.volumes) args.push('--volume', volume);
  for (const [key, value] of Object.entries(run.env)) args.push('--env', `${key}=${value}`);
  return args;
}
