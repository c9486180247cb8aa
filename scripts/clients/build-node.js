#!/usr/bin/env node
'use strict';
/**
 * Builds the Node.js client (clients/node) twice with the repository's TypeScript:
 *   dist/esm  ES modules ("type": "module", relative imports with their .js extension)
 *   dist/cjs  CommonJS   ("type": "commonjs")
 * each with its .d.ts, then checks that both load (require and import) in a fresh node.
 *
 *   node scripts/clients/build-node.js [--out DIR] [--quiet]
 */
const { execFileSync } = require('node:child_process');
const { readdirSync, readFileSync, rmSync, writeFileSync, statSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE = path.join(ROOT, 'clients', 'node');
const TSC = require.resolve('typescript/bin/tsc', { paths: [ROOT] });

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

function tsc(project, outDir) {
  execFileSync(process.execPath, [TSC, '-p', path.join(PACKAGE, project), '--outDir', outDir], { cwd: PACKAGE, stdio: 'inherit' });
}

function main() {
  const out = path.resolve(argument('--out') ?? path.join(PACKAGE, 'dist'));
  const quiet = process.argv.includes('--quiet');
  rmSync(out, { recursive: true, force: true });
  const esm = path.join(out, 'esm');
  const cjs = path.join(out, 'cjs');
  tsc('tsconfig.esm.json', esm);
  addExtensions(esm);
  writeFileSync(path.join(esm, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
  tsc('tsconfig.cjs.json', cjs);
  writeFileSync(path.join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);

  // Both builds must load in a plain node, without TypeScript.
  const probe = (code, args = []) => execFileSync(process.execPath, [...args, '-e', code], { cwd: out, encoding: 'utf8' }).trim();
  const required = probe(`const c = require(${JSON.stringify(path.join(cjs, 'index.js'))}); process.stdout.write(typeof c.ColdchainClient + ' ' + c.VERSION)`);
  const imported = probe(`import(${JSON.stringify(`file://${path.join(esm, 'index.js')}`)}).then((m) => process.stdout.write(typeof m.ColdchainClient + ' ' + m.VERSION))`, ['--input-type=module']);
  if (required !== imported || !required.startsWith('function ')) throw new Error(`build does not load: require → ${required}, import → ${imported}`);
  if (!quiet) process.stderr.write(`built @coldchain/client ${required.split(' ')[1]} into ${path.relative(ROOT, out) || out} (esm + cjs)\n`);
}

try {
  main();
} catch (error) {
  process.stderr.write(`build-node: ${error && error.message ? error.message : error}\n`);
  process.exit(1);
}
