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
 * The node flags an app is deployed with (scripts/node-flags.js: npm start, start:<app>, its
 * Dockerfile); BENCH_API_NODE_FLAGS / BENCH_DISPATCHER_NODE_FLAGS (space separated, may be empty)
 * override them for tuning experiments.
 */
export function deployedNodeFlags(root: string, app: 'api' | 'dispatcher'): string[] {
  const name = `${app.toUpperCase()}_NODE_FLAGS`;
  const override = process.env[`BENCH_${name}`];
  if (override !== undefined) return override.split(' ').filter(Boolean);
  const flags = createRequire(__filename)(join(root, 'scripts/node-flags.js')) as Record<string, string[]>;
  return [...flags[name]];
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
  const opsPort = await freePort();
  const server = ServerProcess.start({
    name,
    script: join(root, script),
    env: { ...env, PORT: String(port), OPS_PORT: String(opsPort), PUBLIC_BASE_URL: origin },
    nodeArgs,
    ipc: Boolean(profile),
  });
  await server.waitForHttp(`${origin}${readyPath}`);
  return { process: server, origin, base: `${origin}/${API_PREFIX}`, opsOrigin: `http://127.0.0.1:${opsPort}` };
}

/** The real api, as deployed: `node dist/apps/api/src/main.js` (migrations already applied). */
export function startApi(root: string, env: NodeJS.ProcessEnv, profile?: ProfileSetup): Promise<AppUnderTest> {
  return startHttpApp('api', root, API_SCRIPT, env, '/health/ready', deployedNodeFlags(root, 'api'), profile);
}

export function startBaseline(root: string, env: NodeJS.ProcessEnv, profile?: ProfileSetup): Promise<AppUnderTest> {
  return startHttpApp('baseline', root, BASELINE_SCRIPT, env, '/health', [], profile);
}

export const dispatcherBuilt = (root: string): boolean => existsSync(join(root, DISPATCHER_SCRIPT));

/** The dispatcher, when built: `node dist/apps/dispatcher/src/main.js` on its own DISPATCHER_PORT. */
export async function startDispatcher(root: string, env: NodeJS.ProcessEnv, api: AppUnderTest, profile?: ProfileSetup): Promise<ServerProcess> {
  const port = await freePort();
  const nodeArgs: string[] = deployedNodeFlags(root, 'dispatcher');
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
