'use strict';
// Builds dist/ when it is missing or older than any source file, so `npm start` and `npm run cli`
// work straight after `npm ci`. Build output goes to stderr: stdout stays machine-readable.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const marker = path.join(root, 'dist', '.build-stamp');

function newestSource(dir) {
  if (!fs.existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(full).mtimeMs);
  }
  return newest;
}

function ensureBuild() {
  const sources = Math.max(...['apps', 'libs', 'bench', 'fuzz'].map((dir) => newestSource(path.join(root, dir))));
  const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
  if (built >= sources) return;
  process.stderr.write('Building (tsc)…\n');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const alias = path.join(root, 'node_modules', 'tsc-alias', 'dist', 'bin', 'index.js');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: ['ignore', 2, 2] });
  execFileSync(process.execPath, [alias, '-p', 'tsconfig.build.json'], { cwd: root, stdio: ['ignore', 2, 2] });
  fs.writeFileSync(marker, new Date().toISOString());
}

/**
 * Builds if needed, then runs a compiled entry point (relative to the repository) with this
 * process's arguments, in the foreground; exits with its status. Ctrl-C reaches the child through
 * the terminal's process group; SIGINT/SIGTERM sent to this process are passed on.
 */
function runCompiled(entry) {
  const { spawn } = require('node:child_process');
  ensureBuild();
  const child = spawn(process.execPath, [path.join(root, entry), ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
}

module.exports = { ensureBuild, runCompiled, root };
if (require.main === module) ensureBuild();
