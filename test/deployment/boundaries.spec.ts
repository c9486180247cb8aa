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

  it('keeps repositories behind the family doors: a door re-exports a repository\'s types, never its functions', () => {
    const doors = [
      ...readdirSync(join(root, 'libs/domain/src'))
        .filter((family) => statSync(join(root, 'libs/domain/src', family)).isDirectory())
        .map((family) => join('libs/domain/src', family, 'index.ts')),
      'libs/webhooks/src/index.ts',
    ];
    // The demo seed's door is for the CLI alone and its statements are the whole of it.
    const BY_DESIGN = new Set(['libs/domain/src/demo/index.ts: ./demo.repository']);
    const problems: string[] = [];
    for (const door of doors) {
      for (const [, what, from] of readFileSync(join(root, door), 'utf8').matchAll(/^export\s+(\*|\{[^}]*\})\s+from\s+'([^']*\.repository)'/gm)) {
        const typesOnly = what !== '*' && what.slice(1, -1).split(',').every((name) => name.trim() === '' || /^type\s/.test(name.trim()));
        const entry = `${door}: ${from}`;
        if (!typesOnly && !BY_DESIGN.has(entry)) problems.push(entry);
      }
    }
    expect(problems).toEqual([]);
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
    ['libs/domain/src/telemetry/telemetry-writer.ts', "import { advanceLifecycleStatus } from '../devices/devices.repository';\nexport const a = advanceLifecycleStatus;\n", 'private to its family'],
    ['apps/api/src/devices/devices.module.ts', "import { DevicesRepository } from '@app/domain/devices/devices.repository';\nexport const d = DevicesRepository;\n", 'private to its family'],
    ['apps/api/src/common/paging.ts', "import { claimDueDeliveries } from '@app/webhooks/store/webhooks.repository';\nexport const c = claimDueDeliveries;\n", 'private to its family'],
    ['libs/domain/src/devices/devices.service.ts', "import { Injectable } from '@nestjs/common';\nexport const i = Injectable;\n", 'no @nestjs/* import'],
    ['apps/api/src/devices/devices.module.ts', "import { seedDemoDeviceRows } from '@app/domain/demo';\nexport const s = seedDemoDeviceRows;\n", 'the demo seed is for the CLI only'],
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
