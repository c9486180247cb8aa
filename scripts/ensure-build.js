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

module.exports = { ensureBuild, root };
if (require.main === module) ensureBuild();
