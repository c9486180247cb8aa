#!/usr/bin/env node
// Writes every repository's SQL to the committed queries/*.sql files (the drift test in
// test/deployment/queries.spec.ts compares them with the code). Runs that test in write mode,
// so the files come from exactly the declarations the test reads.
const { spawnSync } = require('node:child_process');
const result = spawnSync(
  process.execPath,
  ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', 'test/deployment/queries.spec.ts', '--selectProjects', 'unit'],
  { stdio: 'inherit', env: { ...process.env, WRITE_QUERIES: '1' } },
);
process.exit(result.status ?? 1);
