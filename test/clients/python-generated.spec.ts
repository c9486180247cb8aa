import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Drift check of the Python client: scripts/clients/generate-python.js regenerates
 * clients/python/coldchain_client/_generated.py from clients/openapi.json in memory (`--stdout`),
 * and the committed file must be exactly that. `npm run clients:generate:python` rewrites it.
 */
const ROOT = process.cwd();
const GENERATOR = join(ROOT, 'scripts', 'clients', 'generate-python.js');
const GENERATED = join(ROOT, 'clients', 'python', 'coldchain_client', '_generated.py');
const SNAPSHOT = join(ROOT, 'clients', 'openapi.json');

describe('Python client: generated code', () => {
  const regenerated = execFileSync(process.execPath, [GENERATOR, '--stdout'], { encoding: 'utf8' });

  it('matches what the generator makes of clients/openapi.json (run `npm run clients:generate:python`)', () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(regenerated);
  });

  it('has an entry and a method for every operation of the document', () => {
    const document = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const operationIds = Object.values(document.paths).flatMap((item) =>
      ['get', 'post', 'put', 'patch', 'delete'].flatMap((method) => (item[method]?.operationId ? [item[method].operationId] : [])),
    );
    expect(operationIds.length).toBeGreaterThan(0);
    for (const id of operationIds) {
      expect(regenerated).toContain(`    "${id}": Operation(`);
      expect(regenerated).toContain(`OPERATIONS["${id}"]`);
    }
  });
});
