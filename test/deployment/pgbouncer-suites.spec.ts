import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';

const root = process.cwd();
const { SUITES } = createRequire(join(root, 'package.json'))('./scripts/test-pgbouncer.js') as { SUITES: Record<string, string[]> };

function repositories(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return repositories(full);
    return entry.name.endsWith('.repository.ts') ? [basename(entry.name, '.repository.ts')] : [];
  });
}

/** `npm run test:pgbouncer` runs a part of the end-to-end suite behind PgBouncer: that part must reach every repository. */
describe('the suites run behind PgBouncer', () => {
  it('cover every repository of the service', () => {
    const all = [...repositories(join(root, 'apps')), ...repositories(join(root, 'libs'))].sort();
    expect(all.length).toBeGreaterThan(10);
    const covered = new Set(Object.values(SUITES).flat());
    expect(all.filter((name) => !covered.has(name))).toEqual([]);
    expect([...covered].filter((name) => !all.includes(name))).toEqual([]);
  });

  it('exist, and are what `npm run test:pgbouncer` and .ci/run call', () => {
    for (const spec of Object.keys(SUITES)) expect(existsSync(join(root, spec))).toBe(true);
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['test:pgbouncer']).toBe('node scripts/test-pgbouncer.js');
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).toMatch(/^npm run test:pgbouncer$/m);
  });
});
