import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

/**
 * The import graph of the project's own files (apps/, libs/, clients/): TypeScript and JavaScript
 * through the compiler's own import scanner and module resolution (tsconfig paths included,
 * type-only imports included), Python through its relative `from .x import` lines. Used by
 * import-cycles.spec.ts (run from the repository root, as jest is), which prints any circle it finds.
 */
const ROOT = process.cwd();
const SCANNED = ['apps', 'libs', 'clients'];
const SKIPPED = new Set(['node_modules', 'dist', 'bin', 'obj', '__pycache__', '.venv']);
const SCRIPT = /\.(ts|js|mjs|cjs)$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(join(ROOT, dir))) {
    if (SKIPPED.has(entry)) continue;
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) walk(path, out);
    else if (SCRIPT.test(path) && !path.endsWith('.d.ts')) out.push(path);
    else if (path.endsWith('.py')) out.push(path);
  }
  return out;
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(ROOT, 'tsconfig.json');
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  return { ...ts.parseJsonConfigFileContent(config, ts.sys, ROOT).options, allowJs: true };
}

function scriptEdges(file: string, options: ts.CompilerOptions): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  const edges: string[] = [];
  for (const { fileName } of importedFiles) {
    const resolved = ts.resolveModuleName(fileName, join(ROOT, file), options, ts.sys).resolvedModule;
    if (!resolved || resolved.isExternalLibraryImport) continue;
    const target = relative(ROOT, resolved.resolvedFileName);
    if (SCANNED.some((dir) => target.startsWith(`${dir}/`)) && !target.endsWith('.d.ts')) edges.push(target);
  }
  return edges;
}

/** `from .x import a` → x.py (or x/__init__.py); `from . import a, b` → a.py, b.py when they are modules. */
function pythonEdges(file: string): string[] {
  const dir = dirname(file);
  const edges: string[] = [];
  const moduleFile = (base: string, name: string): string | undefined =>
    [join(base, `${name}.py`), join(base, name, '__init__.py')].find((candidate) => existsSync(join(ROOT, candidate)));
  for (const [, dots, name, names] of readFileSync(join(ROOT, file), 'utf8').matchAll(/^[ \t]*from[ \t]+(\.+)([\w.]*)[ \t]+import[ \t]+\(?([\w, \t*]+)/gm)) {
    const base = join(dir, ...Array<string>(dots.length - 1).fill('..'));
    if (name) {
      const target = moduleFile(base, name.replaceAll('.', '/'));
      if (target) edges.push(target);
    } else {
      for (const imported of names.split(',').map((part) => part.trim().split(/\s+/)[0])) {
        const target = imported && moduleFile(base, imported);
        if (target) edges.push(target);
      }
    }
  }
  return edges;
}

export function importGraph(): Map<string, string[]> {
  const options = compilerOptions();
  const graph = new Map<string, string[]>();
  for (const file of SCANNED.flatMap((dir) => walk(dir))) {
    graph.set(file, [...new Set(file.endsWith('.py') ? pythonEdges(file) : scriptEdges(file, options))]);
  }
  return graph;
}

/** Every circle as one path (a → b → … → a), one per strongly connected group of files (Tarjan). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) groups.push(group);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return groups.map((group) => circleThrough(group, graph));
}

/** A shortest path from the group's first file back to itself, staying inside the group. */
function circleThrough(group: string[], graph: Map<string, string[]>): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let step: string | undefined = node; step !== undefined && step !== start; step = previous.get(step)) path.splice(1, 0, step);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [...group, group[0]];
}

/**
 * The family a file belongs to: a folder of `libs/domain/src` (`domain/<name>`) or `libs/webhooks`
 * (`webhooks`); null for anything else (apps, other libraries, the domain barrel `libs/domain/src/index.ts`).
 */
export function familyOf(file: string): string | null {
  const domain = /^libs\/domain\/src\/([^/]+)\//.exec(file);
  if (domain) return `domain/${domain[1]}`;
  return file.startsWith('libs/webhooks/') ? 'webhooks' : null;
}

/** The door of a family: the file another family may import. */
export function doorOf(family: string): string {
  return family === 'webhooks' ? 'libs/webhooks/src/index.ts' : `libs/${family.replace('domain/', 'domain/src/')}/index.ts`;
}

/** Family → families it imports (from any of its files, specs included), and the imports that bypass a door. */
export function familyGraph(graph: Map<string, string[]>): { families: Map<string, string[]>; besideDoors: string[] } {
  const families = new Map<string, Set<string>>();
  const besideDoors: string[] = [];
  for (const [file, targets] of graph) {
    const from = familyOf(file);
    if (from === null) continue;
    if (!families.has(from)) families.set(from, new Set());
    for (const target of targets) {
      const to = familyOf(target);
      if (to === null || to === from) continue;
      families.get(from)!.add(to);
      // A statement file (*.queries.ts) takes another family's SQL fragments and constants from their
      // own files: through the door, the query-file writer would load that family's statements
      // under this file's name.
      if (target !== doorOf(to) && !file.endsWith('.queries.ts')) besideDoors.push(`${file} → ${target}`);
    }
  }
  return { families: new Map([...families].map(([family, uses]) => [family, [...uses].sort()])), besideDoors: besideDoors.sort() };
}
