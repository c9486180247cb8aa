#!/usr/bin/env node
// npm run clients:generate — refreshes the OpenAPI snapshot from the api (booted on the test
// database, as the drift test does) and regenerates the three client libraries from it.
const { spawnSync } = require('node:child_process');

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

run('npm', ['run', '--silent', 'build']);
run(process.execPath, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--runInBand', 'test/clients/openapi-snapshot.e2e-spec.ts'], { WRITE_CLIENTS: '1' });
for (const language of ['node', 'python', 'dotnet']) run(process.execPath, [`scripts/clients/generate-${language}.js`]);
