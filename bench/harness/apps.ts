import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { API_PREFIX } from '../../apps/api/src/common/public-api-controller';
import type { AppUnderTest } from '../scenarios/scenario';
import { freePort, ServerProcess } from './server-process';

export const API_SCRIPT = 'dist/apps/api/src/main.js';
export const DISPATCHER_SCRIPT = 'dist/apps/dispatcher/src/main.js';
export const BASELINE_SCRIPT = 'dist/bench/baseline/server.js';

/**
 * The node flags the api is deployed with (scripts/node-flags.js: npm start, start:api, Dockerfile);
 * BENCH_API_NODE_FLAGS (space separated, may be empty) overrides them for tuning experiments.
 */
export function apiNodeFlags(root: string): string[] {
  const override = process.env.BENCH_API_NODE_FLAGS;
  if (override !== undefined) return override.split(' ').filter(Boolean);
  const flags = createRequire(__filename)(join(root, 'scripts/node-flags.js')) as { API_NODE_FLAGS: string[] };
  return [...flags.API_NODE_FLAGS];
}

/**
 * The environment every bench run starts the apps with: production mode, fresh keys, its own
 * database and broker prefix, a rate limit that never refuses (the limiter still runs) and `warn` logs.
 */
export function benchAppEnv(databaseUrl: string, amqpUrl: string, amqpPrefix: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    AMQP_URL: amqpUrl,
    AMQP_PREFIX: amqpPrefix,
    JWT_SIGNING_KEYS: `bench:${randomBytes(32).toString('hex')}`,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    RATE_LIMIT_PER_MINUTE: '10000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '10000',
    LOG_LEVEL: 'warn',
  };
}

export interface ProfileSetup {
  dir: string;
  name: string;
}

async function startHttpApp(
  name: string,
  root: string,
  script: string,
  env: NodeJS.ProcessEnv,
  readyPath: string,
  flags: string[],
  profile?: ProfileSetup,
): Promise<AppUnderTest> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const nodeArgs = [...flags];
  if (profile) {
    mkdirSync(profile.dir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profile.dir}`, `--cpu-prof-name=${profile.name}`, '--require', join(root, 'dist/bench/support/exit-on-message.js'));
  }
  const server = ServerProcess.start({
    name,
    script: join(root, script),
    env: { ...env, PORT: String(port), OPS_PORT: '0', PUBLIC_BASE_URL: origin }, // OPS_PORT 0: any free port
    nodeArgs,
    ipc: Boolean(profile),
  });
  await server.waitForHttp(`${origin}${readyPath}`);
  return { process: server, origin, base: `${origin}/${API_PREFIX}` };
}

/** The real api, as deployed: `node dist/apps/api/src/main.js` (migrations already applied). */
export function startApi(root: string, env: NodeJS.ProcessEnv, profile?: ProfileSetup): Promise<AppUnderTest> {
  return startHttpApp('api', root, API_SCRIPT, env, '/health/ready', apiNodeFlags(root), profile);
}

export function startBaseline(root: string, env: NodeJS.ProcessEnv, profile?: ProfileSetup): Promise<AppUnderTest> {
  return startHttpApp('baseline', root, BASELINE_SCRIPT, env, '/health', [], profile);
}

export const dispatcherBuilt = (root: string): boolean => existsSync(join(root, DISPATCHER_SCRIPT));

/** The dispatcher, when built: `node dist/apps/dispatcher/src/main.js` on its own DISPATCHER_PORT. */
export async function startDispatcher(root: string, env: NodeJS.ProcessEnv, api: AppUnderTest, profile?: ProfileSetup): Promise<ServerProcess> {
  const port = await freePort();
  const nodeArgs: string[] = [];
  if (profile) {
    mkdirSync(profile.dir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profile.dir}`, `--cpu-prof-name=${profile.name}`, '--require', join(root, 'dist/bench/support/exit-on-message.js'));
  }
  const server = ServerProcess.start({
    name: 'dispatcher',
    script: join(root, DISPATCHER_SCRIPT),
    env: { ...env, DISPATCHER_PORT: String(port), PUBLIC_BASE_URL: api.origin },
    nodeArgs,
    ipc: Boolean(profile),
  });
  await server.waitForHttp(`http://127.0.0.1:${port}/health/ready`);
  return server;
}
