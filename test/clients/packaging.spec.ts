import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The three client packages are publishable as they stand (issue 29, item 6): an MIT LICENSE in
 * each, repository / homepage / bug-tracker metadata, one version source per client, a CHANGELOG;
 * the npm package builds and packs from its own folder with nothing of the monorepo but the
 * devDependencies an `npm install` there would bring (TypeScript, @types/node).
 */
const ROOT = process.cwd();
const CLIENTS = join(ROOT, 'clients');
const WORK = join(ROOT, 'node_modules', '.cache', 'client-packaging');
const REPOSITORY = 'https://github.com/coldchain/cold-chain-public-api';

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 170_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

describe('client packages: licence, metadata, version, changelog', () => {
  it.each(['node', 'python', 'dotnet'])('%s: an MIT LICENSE and a CHANGELOG with the current version', (client) => {
    expect(readFileSync(join(CLIENTS, client, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    const version = {
      node: () => (JSON.parse(readFileSync(join(CLIENTS, 'node', 'package.json'), 'utf8')) as { version: string }).version,
      python: () => /__version__ = "([^"]+)"/.exec(readFileSync(join(CLIENTS, 'python', 'coldchain_client', '_version.py'), 'utf8'))![1],
      dotnet: () => /<Version>([^<]+)<\/Version>/.exec(readFileSync(join(CLIENTS, 'dotnet', 'Coldchain.Client.csproj'), 'utf8'))![1],
    }[client]!();
    expect(readFileSync(join(CLIENTS, client, 'CHANGELOG.md'), 'utf8')).toContain(`## [${version}]`);
  });

  it('node: npm pack in clients/node alone builds the package; the tarball has the build, LICENSE, README, CHANGELOG and nothing else', () => {
    const dir = join(WORK, 'node');
    rmSync(WORK, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const entry of ['package.json', 'src', 'scripts', 'tsconfig.json', 'tsconfig.esm.json', 'README.md', 'LICENSE', 'CHANGELOG.md']) {
      cpSync(join(CLIENTS, 'node', entry), join(dir, entry), { recursive: true });
    }
    // What `npm install` in the package folder would provide: its devDependencies.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', WORK], dir)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = packed.files.map((f) => f.path).sort();
    for (const wanted of ['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/esm/package.json']) {
      expect(files).toContain(wanted);
    }
    expect(files.filter((f) => !/^(LICENSE|README\.md|CHANGELOG\.md|package\.json|dist\/(cjs|esm)\/.+)$/.test(f))).toEqual([]);
    expect(files.some((f) => f.includes('.build-stamp'))).toBe(false);

    const unpacked = join(WORK, 'unpacked');
    mkdirSync(unpacked);
    run('tar', ['-xzf', join(WORK, packed.filename), '-C', unpacked], WORK);
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({
      name: '@coldchain/client',
      license: 'MIT',
      repository: { type: 'git', url: `git+${REPOSITORY}.git`, directory: 'clients/node' },
      homepage: expect.stringContaining(REPOSITORY),
      bugs: { url: `${REPOSITORY}/issues` },
    });
    // The packed build loads and reports the package's version (its one source).
    const loaded = run(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(join(unpacked, 'package', 'dist', 'cjs', 'index.js'))}).VERSION)`], unpacked);
    expect(loaded).toBe(manifest.version);
  }, 180_000);

  it('python: the sdist carries the licence, the project URLs and the version from coldchain_client/_version.py', () => {
    const dir = join(WORK, 'python');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const entry of ['pyproject.toml', 'coldchain_client', 'README.md', 'LICENSE']) cpSync(join(CLIENTS, 'python', entry), join(dir, entry), { recursive: true });
    const sdist = run('python3', ['-c', "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))", join(dir, 'out')], dir).trim().split('\n').pop()!;
    const listing = run('tar', ['-tzf', join(dir, 'out', sdist)], dir);
    const version = /__version__ = "([^"]+)"/.exec(readFileSync(join(CLIENTS, 'python', 'coldchain_client', '_version.py'), 'utf8'))![1];
    // (setuptools names it coldchain-client or coldchain_client, by version)
    expect(sdist).toMatch(new RegExp(`^coldchain[-_]client-${version.replace(/\./g, '\\.')}\\.tar\\.gz$`));
    const top = sdist.replace(/\.tar\.gz$/, '');
    expect(listing).toContain('/LICENSE');
    expect(listing).toContain('/coldchain_client/py.typed');
    const info = run('tar', ['-xzOf', join(dir, 'out', sdist), `${top}/PKG-INFO`], dir);
    expect(info).toContain(`Version: ${version}`);
    expect(info).toMatch(/License: MIT/);
    expect(info).toContain('Classifier: License :: OSI Approved :: MIT License');
    for (const label of ['Homepage', 'Repository', 'Issues', 'Changelog']) expect(info).toMatch(new RegExp(`Project-URL: ${label}, ${REPOSITORY}`));
  }, 120_000);

  it('dotnet: the NuGet metadata is in the project file, with the readme and licence packed', () => {
    const project = readFileSync(join(CLIENTS, 'dotnet', 'Coldchain.Client.csproj'), 'utf8');
    const property = (name: string): string | undefined => new RegExp(`<${name}>([^<]+)</${name}>`).exec(project)?.[1];
    expect(property('PackageLicenseExpression')).toBe('MIT');
    expect(property('Authors')).toEqual(expect.any(String));
    expect(property('RepositoryUrl')).toBe(`${REPOSITORY}.git`);
    expect(property('RepositoryType')).toBe('git');
    expect(property('PackageProjectUrl')).toContain(REPOSITORY);
    expect(property('PackageReadmeFile')).toBe('README.md');
    expect(property('Version')).toMatch(/^\d+\.\d+\.\d+/);
    for (const file of ['README.md', 'LICENSE', 'CHANGELOG.md']) {
      expect(project).toContain(`<None Include="${file}" Pack="true" PackagePath="\\" />`);
      expect(existsSync(join(CLIENTS, 'dotnet', file))).toBe(true);
    }
    // No second version in the sources: the assembly carries the project's <Version>.
    expect(readFileSync(join(CLIENTS, 'dotnet', 'src', 'Internal', 'ApiRequester.cs'), 'utf8')).not.toMatch(/Version = "\d/);
  });
});
