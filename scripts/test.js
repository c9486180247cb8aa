'use strict';
// `npm test`: the checks that share nothing run side by side, the end-to-end suites one at a time.
//   1. type-check, lint and build together (each is single-threaded; the machine has cores to spare);
//   2. the unit project on jest's workers (pure functions and files: no shared state);
//   3. the end-to-end project in band, in three jest processes one after the other (its suites share one database, broker prefix and machine, and
//      several measure time: running them side by side would make them compete, not finish sooner).
// Each step's output is printed whole when it ends, with its duration; the first failure stops the run.
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const jest = [process.execPath, '--experimental-vm-modules', path.join(root, 'node_modules', 'jest', 'bin', 'jest.js')];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(name, command, args, { buffered }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const chunks = [];
    if (buffered) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      if (buffered) process.stdout.write(Buffer.concat(chunks));
      const ok = code === 0;
      process.stdout.write(`== ${name}: ${ok ? 'ok' : `failed (${signal ?? code})`} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
      resolve(ok);
    });
  });
}

async function main() {
  // Passed on to both jest runs (e.g. a path filter); a filter may match suites of one project only.
  const filter = process.argv.slice(2);
  const extra = filter.length > 0 ? ['--passWithNoTests', ...filter] : [];
  const checks = await Promise.all([
    run('typecheck', npm, ['run', '--silent', 'typecheck'], { buffered: true }),
    run('lint', npm, ['run', '--silent', 'lint'], { buffered: true }),
    run('build', npm, ['run', '--silent', 'build'], { buffered: true }),
  ]);
  if (checks.includes(false)) return 1;
  if (!(await run('unit tests', jest[0], [...jest.slice(1), '--selectProjects', 'unit', ...extra], { buffered: false }))) return 1;
  // In band, one process loads every suite's modules, and jest keeps part of each suite's module
  // graph until its process ends (~80 MB a suite here): the suites run in three jest processes one
  // after the other (never side by side), each with room to spare.
  const shards = 3;
  for (let shard = 1; shard <= shards; shard += 1) {
    const args = ['--max-old-space-size=8192', ...jest.slice(1), '--runInBand', `--shard=${shard}/${shards}`, ...(extra.length > 0 ? [] : ['--passWithNoTests']), '--selectProjects', 'e2e', ...extra];
    if (!(await run(`end-to-end tests (${shard}/${shards})`, jest[0], args, { buffered: false }))) return 1;
  }
  return 0;
}

main().then((code) => process.exit(code));
