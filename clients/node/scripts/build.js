#!/usr/bin/env node
'use strict';
/**
 * Builds the Node.js client (this folder, clients/node) with TypeScript (its devDependency; in the
 * monorepo the root's). It needs nothing outside this folder, so `npm pack` works here alone:
 *   dist/esm  ES modules ("type": "module", relative imports with their .js extension)
 *   dist/cjs  CommonJS   ("type": "commonjs")
 * One `tsc` type-checks the sources and emits the declarations (used by both builds); each source
 * file is then transpiled twice (they are isolated modules). Finally both builds must load
 * (require and import) in a fresh node. Skipped when dist is already built from the same sources.
 *
 * The version's one source is package.json: src/version.ts is written from it first.
 * dist/.build-stamp (the hash that lets an unchanged build be skipped) is not in the package.
 *
 *   node scripts/build.js [--out DIR] [--quiet] [--force] [--no-types]
 *   (from the repository root: node scripts/clients/build-node.js, the same options)
 *
 * --no-types skips the type check and the .d.ts files (JavaScript only: for tests that type-check elsewhere).
 */
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync } = require('node:fs');
const path = require('node:path');

const PACKAGE = path.resolve(__dirname, '..');
const ROOT = PACKAGE;
const TSC = require.resolve('typescript/bin/tsc', { paths: [PACKAGE] });

function argument(name) {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

/** Every file under dir (recursively). */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

/** Node's ESM loader needs full specifiers: './transport' → './transport.js' (and folders → '/index.js'). */
function addExtensions(dir) {
  for (const file of files(dir).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
    const source = readFileSync(file, 'utf8');
    const fixed = source.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\2/g, (match, lead, quote, specifier) => {
      if (/\.(m?js|json)$/.test(specifier)) return match;
      const target = path.resolve(path.dirname(file), specifier);
      const isDir = (() => {
        try {
          return statSync(target).isDirectory();
        } catch {
          return false;
        }
      })();
      return `${lead}${quote}${specifier}${isDir ? '/index.js' : '.js'}${quote}`;
    });
    if (fixed !== source) writeFileSync(file, fixed);
  }
}

function tsc(project, outDir, extra = []) {
  execFileSync(process.execPath, [TSC, '-p', path.join(PACKAGE, project), '--outDir', outDir, ...extra], { cwd: PACKAGE, stdio: 'inherit' });
}

/** A hash of everything the build reads. */
function sourceStamp() {
  const hash = createHash('sha256');
  const inputs = [
    ...files(path.join(PACKAGE, 'src')).sort(),
    ...['package.json', 'tsconfig.json', 'tsconfig.esm.json'].map((f) => path.join(PACKAGE, f)),
    __filename,
    require.resolve('typescript/package.json', { paths: [PACKAGE] }),
  ];
  for (const file of inputs) hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

function transpile(ts, srcDir, outDir, module) {
  for (const file of files(srcDir).filter((f) => f.endsWith('.ts'))) {
    const relative = path.relative(srcDir, file).replace(/\.ts$/, '.js');
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module, target: ts.ScriptTarget.ES2022, esModuleInterop: true, isolatedModules: true, removeComments: false },
    });
    const target = path.join(outDir, relative);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, outputText);
  }
}

/** src/version.ts from package.json (rewritten only when it differs). */
function writeVersion() {
  const { version } = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8'));
  const file = path.join(PACKAGE, 'src', 'version.ts');
  const text = `/** Version of this package: written from package.json by scripts/build.js (its one source); do not edit. */\nexport const VERSION = '${version}';\n`;
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
}

function main() {
  writeVersion();
  const out = path.resolve(argument('--out') ?? path.join(PACKAGE, 'dist'));
  const quiet = process.argv.includes('--quiet');
  const stampFile = path.join(out, '.build-stamp');
  const stamp = `${sourceStamp()}${process.argv.includes('--no-types') ? ' no-types' : ''}`;
  if (!process.argv.includes('--force') && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
    if (!quiet) process.stderr.write(`@coldchain/client is up to date in ${path.relative(ROOT, out) || out}\n`);
    return;
  }
  rmSync(out, { recursive: true, force: true });
  const esm = path.join(out, 'esm');
  const cjs = path.join(out, 'cjs');
  const src = path.join(PACKAGE, 'src');
  // Type check + declarations (once), then the two module formats.
  const types = !process.argv.includes('--no-types');
  if (types) tsc('tsconfig.esm.json', esm, ['--emitDeclarationOnly']);
  const ts = require(require.resolve('typescript', { paths: [PACKAGE] }));
  transpile(ts, src, esm, ts.ModuleKind.ES2022);
  addExtensions(esm);
  transpile(ts, src, cjs, ts.ModuleKind.CommonJS);
  for (const declaration of files(esm).filter((f) => f.endsWith('.d.ts'))) {
    const target = path.join(cjs, path.relative(esm, declaration));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, readFileSync(declaration));
  }
  writeFileSync(path.join(esm, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  writeFileSync(path.join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);

  // Both builds must load in a plain node, without TypeScript.
  const probe = (code, args = []) => execFileSync(process.execPath, [...args, '-e', code], { cwd: out, encoding: 'utf8' }).trim();
  const required = probe(`const c = require(${JSON.stringify(path.join(cjs, 'index.js'))}); process.stdout.write(typeof c.ColdchainClient + ' ' + c.VERSION)`);
  const imported = probe(`import(${JSON.stringify(`file://${path.join(esm, 'index.js')}`)}).then((m) => process.stdout.write(typeof m.ColdchainClient + ' ' + m.VERSION))`, ['--input-type=module']);
  if (required !== imported || !required.startsWith('function ')) throw new Error(`build does not load: require → ${required}, import → ${imported}`);
  writeFileSync(stampFile, stamp);
  if (!quiet) process.stderr.write(`built @coldchain/client ${required.split(' ')[1]} into ${path.relative(ROOT, out) || out} (esm + cjs)\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`build-node: ${error && error.message ? error.message : error}\n`);
  process.exit(1);
}
