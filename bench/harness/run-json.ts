import { spawn } from 'node:child_process';

/** Runs a compiled bench script in its own process: job as JSON on stdin, result as JSON on stdout. */
export function runJson<T>(script: string, job: unknown, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code}: ${stderr.trim()}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`${script} printed no JSON: ${stdout.slice(0, 200)}`));
      }
    });
    child.stdin.end(JSON.stringify(job));
  });
}
