import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const root = process.cwd();
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const patterns = (path: string): string[] =>
  read(path)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

/** What the two Dockerfiles copy from the build context (the repository root). */
function copiedSources(): string[] {
  const sources = new Set<string>();
  for (const app of ['api', 'dispatcher']) {
    for (const line of read(`docker/Dockerfile.${app}`).split('\n')) {
      const match = /^COPY\s+(?!--from)(.+)\s+\S+$/.exec(line.trim());
      if (match) for (const source of match[1].split(/\s+/)) sources.add(source);
    }
  }
  return [...sources];
}

describe('docker build context', () => {
  const ignore = patterns('.dockerignore');

  it('leaves out dependencies, build output, git history and local state', () => {
    for (const entry of ['node_modules', 'dist', '.git', '.data', '.env']) expect(ignore).toContain(entry);
  });

  it('uses the same rules in the BuildKit per-Dockerfile files as at the context root', () => {
    for (const app of ['api', 'dispatcher']) expect(read(`docker/Dockerfile.${app}.dockerignore`)).toBe(read('.dockerignore'));
  });

  it('still sends every file the Dockerfiles copy, and every copied file exists', () => {
    const sources = copiedSources();
    expect(sources).toEqual(expect.arrayContaining(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'apps', 'libs', 'scripts']));
    for (const source of sources) {
      expect(existsSync(join(root, source))).toBe(true);
      expect(ignore).not.toContain(source);
    }
  });
});

describe('package manifest', () => {
  const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  /** Packages used without an import of their own name, and why. */
  const usedIndirectly: Record<string, string> = {
    passport: 'peer dependency of @nestjs/passport and passport-jwt',
    'reflect-metadata': 'peer dependency of @nestjs/common and @nestjs/core (decorator metadata)',
    'dejavu-fonts-ttf': 'font files read by path for the PDF reports',
    eslint: 'npm run lint',
    jest: 'npm run test:jest',
    'ts-jest': 'jest transform (jest.config.js)',
    typescript: 'tsc: typecheck and build',
    'tsc-alias': 'build: rewrites @app/* paths in dist (scripts/ensure-build.js)',
  };

  function sourceFiles(dir: string, out: string[] = []): string[] {
    for (const entry of readdirSync(join(root, dir))) {
      const path = join(dir, entry);
      if (['node_modules', 'dist', '.git'].includes(entry)) continue;
      if (statSync(join(root, path)).isDirectory()) sourceFiles(path, out);
      else if (/\.(ts|js|mjs|cjs)$/.test(entry)) out.push(path);
    }
    return out;
  }

  it('declares no dependency the code never uses', () => {
    const code = [...['apps', 'libs', 'test', 'bench', 'scripts', 'fuzz'].flatMap((dir) => (existsSync(join(root, dir)) ? sourceFiles(dir) : [])), 'eslint.config.mjs', 'jest.config.js']
      .map((file) => read(relative(root, join(root, file))))
      .join('\n');
    const unused = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter((name) => {
      if (name in usedIndirectly) return false;
      if (name.startsWith('@types/')) return false; // type packages follow the packages they type
      return !code.includes(`'${name}'`) && !code.includes(`'${name}/`) && !code.includes(`"${name}"`) && !code.includes(`"${name}/`);
    });
    expect(unused).toEqual([]);
  });

  it('builds with tsc, not with a Nest CLI description nobody reads', () => {
    expect(existsSync(join(root, 'nest-cli.json'))).toBe(false);
    expect(manifest.devDependencies['@nestjs/cli']).toBeUndefined();
    expect(read('scripts/ensure-build.js')).toContain("'tsconfig.build.json'");
  });
});

describe('node flags', () => {
  // scripts/node-flags.js is what `npm start` and the benchmark use; the start scripts and the images repeat it.
  const flags = createRequire(`${root}/`)(join(root, 'scripts/node-flags.js')) as { API_NODE_FLAGS: string[]; DISPATCHER_NODE_FLAGS: string[] };
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

  it.each([
    ['api', flags.API_NODE_FLAGS],
    ['dispatcher', flags.DISPATCHER_NODE_FLAGS],
  ])('starts the %s with the same flags in package.json and in its Dockerfile', (app, expected) => {
    const main = `dist/apps/${app}/src/main.js`;
    expect(scripts[`start:${app}`]).toBe(['node', ...expected, main].join(' '));
    const cmd = read(`docker/Dockerfile.${app}`)
      .split('\n')
      .find((line) => line.startsWith('CMD ['));
    expect(JSON.parse((cmd as string).slice('CMD '.length))).toEqual(['node', ...expected, main]);
  });
});
