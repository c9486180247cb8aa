#!/usr/bin/env node
'use strict';
// `npm run test:cluster`: a 3-node RabbitMQ cluster of the test's own on this machine (own node
// names, ports, data directories and Erlang cookie under a temp dir; the machine's broker on 5672
// is never touched), the built api and dispatcher against it with AMQP_QUEUE_TYPE=quorum and an
// AMQP_URL list, and the nodes leading the events and ingestion queues SIGKILLed under load
// (test/cluster/, jest project "cluster"). Needs Debian's rabbitmq-server and the machine's PostgreSQL.
// The nodes run in process groups of their own: whatever way jest ends (even killed), every group
// it recorded under CLUSTER_TEST_TMPDIR is SIGKILLed afterwards and the directory removed.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureBuild, root } = require('./ensure-build');

const bin = process.env.RABBITMQ_BIN_DIR || '/usr/lib/rabbitmq/bin';
if (!fs.existsSync(path.join(bin, 'rabbitmq-server'))) {
  process.stderr.write(`test:cluster: ${bin}/rabbitmq-server is missing: install Debian's rabbitmq-server (or set RABBITMQ_BIN_DIR)\n`);
  process.exit(1);
}
ensureBuild();

const state = fs.mkdtempSync(path.join(os.tmpdir(), 'coldchain-cluster-test-'));

/** SIGKILLs every node group a cluster recorded (a no-op when the test stopped them) and removes the state. */
function sweep() {
  for (const cluster of fs.readdirSync(state)) {
    const dir = path.join(state, cluster);
    for (const node of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      const file = path.join(dir, node, 'group');
      if (!fs.existsSync(file)) continue;
      const group = Number(fs.readFileSync(file, 'utf8'));
      try {
        if (group > 1) process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  fs.rmSync(state, { recursive: true, force: true });
}

const started = Date.now();
const jest = path.join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const child = spawn(process.execPath, ['--experimental-vm-modules', jest, '--runInBand', '--selectProjects', 'cluster', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CLUSTER_TEST_TMPDIR: state },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  sweep();
  const ok = code === 0;
  process.stdout.write(`== cluster: ${ok ? 'ok' : `FAILED (${signal ?? code})`} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  process.exit(ok ? 0 : 1);
});
