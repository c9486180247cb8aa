import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { API_PREFIX } from '../../apps/api/src/common/public-api-controller';
import type { AppUnderTest } from '../scenarios/scenario';
import { freePort, ServerProcess } from './server-process';

export const API_SCRIPT = 'dist/apps/api/src/main.js';
export const DISPATCHER_SCRIPT = 'dist/apps/dispatcher/src/main.js';
export const BASELINE_SCRIPT = 'dist/bench/baseline/server.js';

export interface ProfileSetup {
  dir: string;
  name: string;
}

async function startHttpApp(name: string, root: string, script: string, env: NodeJS.ProcessEnv, readyPath: string, profile?: ProfileSetup): Promise<AppUnderTest> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const nodeArgs: string[] = [];
  if (profile) {
    mkdirSync(profile.dir, { recursive: true });
    nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profile.dir}`, `--cpu-prof-name=${profile.name}`, '--require', join(root, 'dist/bench/support/exit-on-message.js'));
  }
  const process = ServerProcess.start({
    name,
    script: join(root, script),
    env: { ...env, PORT: String(port), PUBLIC_BASE_URL: origin },
    nodeArgs,
    ipc: Boolean(profile),
  });
  await process.waitForHttp(`${origin}${readyPath}`);
  return { process, origin, base: `${origin}/${API_PREFIX}` };
}

/** The real api, as deployed: `node dist/apps/api/src/main.js` (migrations already applied). */
export function startApi(root: string, env: NodeJS.ProcessEnv, profile?: ProfileSetup): Promise<AppUnderTest> {
  return startHttpApp('api', root, API_SCRIPT, env, '/health/ready', profile);
}

export function startBaseline(root: string, env: NodeJS.ProcessEnv): Promise<AppUnderTest> {
  return startHttpApp('baseline', root, BASELINE_SCRIPT, env, '/health');
}

export const dispatcherBuilt = (root: string): boolean => existsSync(join(root, DISPATCHER_SCRIPT));

/** The dispatcher, when built: `node dist/apps/dispatcher/src/main.js` on its own DISPATCHER_PORT. */
export async function startDispatcher(root: string, env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const process = ServerProcess.start({ name: 'dispatcher', script: join(root, DISPATCHER_SCRIPT), env: { ...env, DISPATCHER_PORT: String(port) } });
  await process.waitForHttp(`http://127.0.0.1:${port}/health/ready`);
  return process;
}
