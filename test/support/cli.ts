import { jest } from '@jest/globals';
import { buildProgram, runCli } from '../../apps/cli/src/cli';

/** Runs one CLI command line in-process (spawning is slow) as the shell would: exit code and output. */
export async function runCaptured(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => out.push(String(chunk)) > 0);
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => err.push(String(chunk)) > 0);
  try {
    const code = await runCli(argv);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

/** Runs one command in-process and returns its stdout; a refusal is thrown (CliError, CommanderError). */
export async function cliOutput(...argv: string[]): Promise<string> {
  const chunks: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => chunks.push(String(chunk)) > 0);
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
  } finally {
    write.mockRestore();
  }
  return chunks.join('');
}
