import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = process.cwd();

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(root, dir))) {
    const path = join(dir, entry);
    if (statSync(join(root, path)).isDirectory()) files(path, out);
    else if (path.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Which library imports which (any `@app/<lib>` import, type-only ones included). */
function libraryGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const lib of readdirSync(join(root, 'libs'))) {
    const edges = new Set<string>();
    for (const file of files(join('libs', lib, 'src'))) {
      for (const [, target] of readFileSync(join(root, file), 'utf8').matchAll(/from '@app\/([a-z-]+)/g)) if (target !== lib) edges.add(target);
    }
    graph.set(lib, edges);
  }
  return graph;
}

describe('import boundaries', () => {
  it('has no loop between libraries', () => {
    const graph = libraryGraph();
    const state = new Map<string, 'visiting' | 'done'>();
    const loops: string[] = [];
    const visit = (lib: string, path: string[]): void => {
      if (state.get(lib) === 'done') return;
      if (state.get(lib) === 'visiting') {
        loops.push([...path.slice(path.indexOf(lib)), lib].join(' → '));
        return;
      }
      state.set(lib, 'visiting');
      for (const next of graph.get(lib) ?? []) visit(next, [...path, lib]);
      state.set(lib, 'done');
    };
    for (const lib of graph.keys()) visit(lib, []);
    expect(loops).toEqual([]);
    expect(graph.get('database')).not.toContain('domain');
    expect(graph.get('vocabulary')).toEqual(new Set());
  });

  it('keeps the receiver kit free of the project: no library but vocabulary, no package but node:*', () => {
    expect([...(libraryGraph().get('webhook-kit') ?? ['(libs/webhook-kit missing)'])].filter((lib) => lib !== 'vocabulary')).toEqual([]);
    const imports = files(join('libs', 'webhook-kit', 'src')).flatMap((file) =>
      ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true).importedFiles.map(({ fileName }) => `${file}: ${fileName}`),
    );
    expect(imports.filter((entry) => !/: (node:|\.\/|@app\/vocabulary($|\/))/.test(entry))).toEqual([]);
  });

  it.each([
    ['libs/database/src/index.ts', "import type { Role } from '@app/domain';\nexport type R = Role;\n", 'must not import @app/domain'],
    ['libs/events/src/index.ts', "import { encryptSecret } from '@app/webhooks';\nexport const s = encryptSecret;\n", 'must not import @app/webhooks'],
    ['libs/webhook-kit/src/index.ts', "import { newId } from '@app/database';\nexport const n = newId;\n", 'must not import @app/database'],
    ['libs/webhook-kit/src/signature.ts', "import { encryptSecret } from '@app/webhooks';\nexport const s = encryptSecret;\n", 'must not import @app/webhooks'],
    ['libs/vocabulary/src/index.ts', "import { signWebhook } from '@app/webhook-kit';\nexport const s = signWebhook;\n", 'must not import @app/webhook-kit'],
    ['libs/domain/src/index.ts', "import { createApiApp } from '../../../apps/api/src/bootstrap';\nexport const c = createApiApp;\n", 'libs never import apps'],
    ['apps/api/src/common/paging.ts', "import { ShipmentsService } from '../shipments/shipments.service';\nexport const s = ShipmentsService;\n", 'common/ never imports a feature module'],
  ])('the lint refuses a boundary crossing (text linted as %s)', async (filePath, code, message) => {
    const [result] = await new ESLint({ cwd: root }).lintText(code, { filePath: join(root, filePath) });
    expect(result.messages.map((m) => m.message).join('\n')).toContain(message);
  });

  it('lets an app import any library', async () => {
    const [result] = await new ESLint({ cwd: root }).lintText("import { ALL_SCOPES } from '@app/vocabulary';\nexport const scopes = ALL_SCOPES;\n", {
      filePath: join(root, 'apps/api/src/accounts/accounts.controller.ts'),
    });
    expect(result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')).toEqual([]);
  });
});
