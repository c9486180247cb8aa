import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/**
 * One definition of how the container test runs the compose file's app services: their
 * environment, command and filesystem come from docker/docker-compose.yml itself, and only the
 * values listed in HOST_OVERRIDES (where the machine's services are, so that a run never meets
 * another) and the variables of TEST_ADDITIONS differ. test/deployment/compose.spec.ts checks
 * what this produces against the compose file; test/containers/containers.containers-spec.ts runs it.
 */

export type AppService = 'migrate' | 'api' | 'dispatcher';

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  read_only?: boolean;
  tmpfs?: string[];
  stop_grace_period?: string;
  ports?: string[];
  expose?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
}

export function readCompose(): { services: Record<string, ComposeService> } {
  return parse(readFileSync(join(process.cwd(), 'docker/docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
}

/** Where this run's own services are: the machine's PostgreSQL, RabbitMQ and Redis. */
export interface HostStack {
  /** Values for the compose file's `${NAME:-default}` (docker/.env in a deployment). */
  variables: Record<string, string>;
  databaseUrl: string;
  amqpUrl: Record<'api' | 'dispatcher', string>;
  redisUrl: string;
  redisKeyPrefix: string;
  port: number;
  opsPort: number;
  dispatcherPort: number;
  /** Host path of the receiver's CA certificate, mounted read-only into the containers. */
  caFile: string;
}

/** Compose values the test replaces, and why: the rest of each environment is the compose file's. */
export const HOST_OVERRIDES: Record<string, string> = {
  DATABASE_URL: "this run's own database and role on the machine's PostgreSQL",
  AMQP_URL: "this run's own vhost and users on the machine's RabbitMQ",
  REDIS_URL: "the machine's Redis (keys under this run's REDIS_KEY_PREFIX)",
  PORT: 'a free port: the containers share the host network',
  OPS_PORT: 'a free port: the containers share the host network',
  DISPATCHER_PORT: 'a free port: the containers share the host network',
  OPS_HOST: 'on the host network, loopback stands for the compose network',
};

/** Variables the test adds to what compose sets, and why. */
export const TEST_ADDITIONS: Record<string, string> = {
  NODE_EXTRA_CA_CERTS: "trusts the test receiver's private CA (compose: mount a CA and set it, as its comment says)",
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'the test receiver listens on loopback',
  REDIS_KEY_PREFIX: "this run's keys only, in a Redis other runs share",
};

/** Where the CA certificate is mounted in the containers. */
export const CA_MOUNT = '/etc/coldchain/webhook-ca.pem';

export interface ContainerRun {
  service: AppService;
  /** Which image: the compose service's build file. */
  dockerfile: string;
  /** The compose command, or undefined for the image's CMD (as compose does). */
  command: string[] | undefined;
  env: Record<string, string>;
  readOnly: boolean;
  tmpfs: string[];
  stopGraceSeconds: number;
  /** host:container:ro */
  volumes: string[];
}

/** `${NAME:-default}` and `${NAME}` as compose substitutes them, from `variables`. */
export function substitute(value: string, variables: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => variables[name] ?? fallback ?? '');
}

function overridden(name: string, service: AppService, host: HostStack): string {
  switch (name) {
    case 'DATABASE_URL':
      return host.databaseUrl;
    case 'AMQP_URL':
      return host.amqpUrl[service as 'api' | 'dispatcher'];
    case 'REDIS_URL':
      return host.redisUrl;
    case 'PORT':
      return String(host.port);
    case 'OPS_PORT':
      return String(host.opsPort);
    case 'DISPATCHER_PORT':
      return String(host.dispatcherPort);
    case 'OPS_HOST':
      return '127.0.0.1';
    default:
      throw new Error(`no host value for ${name}`);
  }
}

/** How the container test runs one compose app service on this machine. */
export function containerRun(service: AppService, host: HostStack): ContainerRun {
  const spec = readCompose().services[service];
  if (!spec?.build) throw new Error(`docker-compose.yml has no buildable service ${service}`);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(spec.environment ?? {})) {
    env[name] = name in HOST_OVERRIDES ? overridden(name, service, host) : substitute(String(value), host.variables);
  }
  env.NODE_EXTRA_CA_CERTS = CA_MOUNT;
  env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
  env.REDIS_KEY_PREFIX = host.redisKeyPrefix;
  const grace = /^(\d+)s$/.exec(spec.stop_grace_period ?? '10s');
  return {
    service,
    dockerfile: spec.build.dockerfile,
    command: spec.command,
    env,
    readOnly: spec.read_only === true,
    tmpfs: spec.tmpfs ?? [],
    stopGraceSeconds: grace ? Number(grace[1]) : 10,
    volumes: [`${host.caFile}:${CA_MOUNT}:ro`],
  };
}
