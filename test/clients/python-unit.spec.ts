import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * The Python client's own unit tests (webhook signatures, retries and backoff, token caching,
 * redaction, paging, downloads against a local http.server; coverage of the document), run with
 * the machine's python3. The suites that need the service skip themselves here; they run from
 * test/clients/python.e2e-spec.ts.
 */
describe('Python client: unit tests (python3 -m unittest)', () => {
  it('pass', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
    for (const name of Object.keys(env)) if (name.startsWith('COLDCHAIN_')) delete env[name];
    const result = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', join('clients', 'python', 'tests'), '-p', 'test_*.py'], {
      cwd: process.cwd(),
      env,
      encoding: 'utf8',
      timeout: 50_000,
    });
    if (result.status !== 0) throw new Error(`python3 -m unittest exited ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`);
    expect(result.stderr).toMatch(/Ran [1-9]\d* tests? in/);
    expect(result.stderr).toMatch(/\nOK( \(skipped=\d+\))?\s*$/);
  });
});
