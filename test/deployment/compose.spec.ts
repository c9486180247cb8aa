import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { containerRun, HOST_OVERRIDES, type HostStack, readCompose, substitute, TEST_ADDITIONS } from '../containers/stack';

interface Service {
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  healthcheck?: { test: string[] };
}

const compose = parse(readFileSync(join(process.cwd(), 'docker/docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
const dockerfile = (app: string): string => readFileSync(join(process.cwd(), `docker/Dockerfile.${app}`), 'utf8');

/** The compose stack must never publish an operations port (metrics, detailed readiness). */
describe('docker compose: operations ports stay on the compose network', () => {
  const { api, dispatcher } = compose.services;

  it('publishes only the api public port', () => {
    expect(api.ports).toEqual(['3000:3000']);
    expect(dispatcher.ports).toBeUndefined();
    for (const service of Object.values(compose.services)) {
      for (const mapping of service.ports ?? []) expect(mapping).not.toMatch(/\b(9464|3001)\b/);
    }
  });

  it('listens on the compose network for Prometheus and checks health on the ops ports', () => {
    expect(api.environment?.OPS_HOST).toBe('0.0.0.0');
    expect(api.environment?.OPS_PORT).toBe('9464');
    expect(dispatcher.environment?.DISPATCHER_PORT).toBe('3001');
    expect(api.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:9464/health/ready');
    expect(dispatcher.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:3001/health/ready');
  });

  it('does not EXPOSE an operations port in the images (docker run -P would publish it)', () => {
    expect(dockerfile('api')).toMatch(/^EXPOSE 3000$/m);
    expect(dockerfile('api')).not.toMatch(/^EXPOSE .*9464/m);
    expect(dockerfile('api')).toContain("(process.env.OPS_PORT||9464)+'/health/ready'");
    expect(dockerfile('dispatcher')).not.toMatch(/^EXPOSE/m);
  });
});

describe('docker compose: one RabbitMQ user per role', () => {
  const { api, dispatcher, rabbitmq } = compose.services as Record<string, Service & { volumes?: string[]; depends_on?: Record<string, { condition: string }> }>;
  const user = (service: Service): string => new URL(String(service.environment?.AMQP_URL).replace(/\$\{[^}]*\}/g, 'x')).username;

  it('connects the api and the dispatcher as different, unprivileged users, after the users exist', () => {
    expect(user(api)).toBe('coldchain-api');
    expect(user(dispatcher)).toBe('coldchain-dispatcher');
    for (const app of [api, dispatcher]) expect(app.depends_on?.['rabbitmq-users']).toEqual({ condition: 'service_completed_successfully' });
    expect(rabbitmq.environment?.RABBITMQ_DEFAULT_USER).toBe('admin');
    expect(rabbitmq.volumes).toContain('./rabbitmq/rabbitmq.conf:/etc/rabbitmq/conf.d/20-coldchain.conf:ro');
  });

  it('creates every user of permissions.json, the gateway able to publish only telemetry and AIS', () => {
    const script = readFileSync(join(process.cwd(), 'docker/rabbitmq/setup-users.sh'), 'utf8');
    const permissions = JSON.parse(readFileSync(join(process.cwd(), 'docker/rabbitmq/permissions.json'), 'utf8')) as Record<string, { write: string; read: string; configure: string }>;
    for (const name of ['coldchain-api', 'coldchain-dispatcher', 'coldchain-gateway']) expect(script).toContain(`users/${name}`);
    expect(permissions['coldchain-gateway']).toEqual({ configure: '^$', write: '^coldchain\\.(telemetry|ais)$', read: '^$' });
    expect(readFileSync(join(process.cwd(), 'docker/rabbitmq/rabbitmq.conf'), 'utf8')).toMatch(/^max_message_size = \d+$/m);
  });
});

describe('docker compose: the api counts its rate limits in Redis', () => {
  const { api, redis, dispatcher } = compose.services as Record<string, Service & { image?: string; depends_on?: Record<string, { condition: string }> }>;

  it('runs a Redis on the compose network only, and starts the api with REDIS_URL once it answers', () => {
    expect(redis?.image).toMatch(/^redis:/);
    expect(redis.ports).toBeUndefined();
    expect(redis.healthcheck?.test).toEqual(['CMD', 'redis-cli', 'ping']);
    expect(api.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(api.depends_on?.redis).toEqual({ condition: 'service_healthy' });
    expect(dispatcher.environment?.REDIS_URL).toBeUndefined(); // the dispatcher has no API limits
  });
});

describe('docker compose: the container test runs the app services as written here', () => {
  const services = readCompose().services;
  const host: HostStack = {
    variables: { JWT_SIGNING_KEYS: 'k1:test-key', SECRETS_KEY: 'test-secrets-key', PUBLIC_BASE_URL: 'http://127.0.0.1:1', API_AMQP_PASSWORD: 'a', DISPATCHER_AMQP_PASSWORD: 'd' },
    databaseUrl: 'postgresql://r:p@127.0.0.1:5432/db',
    amqpUrl: { api: 'amqp://a:a@127.0.0.1:5672/v', dispatcher: 'amqp://d:d@127.0.0.1:5672/v' },
    redisUrl: 'redis://127.0.0.1:6379',
    redisKeyPrefix: 'run',
    port: 1,
    opsPort: 2,
    dispatcherPort: 3,
    caFile: '/tmp/ca.pem',
  };

  it.each(['migrate', 'api', 'dispatcher'] as const)('%s: the same variables, command, image and filesystem as compose', (name) => {
    const composed = services[name];
    const ran = containerRun(name, host);
    const composeEnv = composed.environment ?? {};
    expect(Object.keys(ran.env).sort()).toEqual([...Object.keys(composeEnv), ...Object.keys(TEST_ADDITIONS)].sort());
    for (const [key, value] of Object.entries(composeEnv)) {
      if (key in HOST_OVERRIDES) continue;
      expect({ key, value: ran.env[key] }).toEqual({ key, value: substitute(String(value), host.variables) });
    }
    expect(ran.command).toEqual(composed.command);
    expect(ran.dockerfile).toBe(composed.build?.dockerfile);
    expect({ readOnly: ran.readOnly, tmpfs: ran.tmpfs, grace: ran.stopGraceSeconds }).toEqual({ readOnly: true, tmpfs: ['/tmp'], grace: 10 });
    expect(composed.stop_grace_period).toBe('10s');
  });

  it('overrides only where the services are, and says why for each', () => {
    for (const name of ['migrate', 'api', 'dispatcher'] as const) {
      for (const key of Object.keys(services[name].environment ?? {})) {
        if (key in HOST_OVERRIDES) expect(['DATABASE_URL', 'AMQP_URL', 'REDIS_URL', 'PORT', 'OPS_PORT', 'DISPATCHER_PORT', 'OPS_HOST']).toContain(key);
      }
    }
    // The broker users of the test keep the compose user's name as their prefix (its permissions).
    expect(new URL(containerRun('api', { ...host, amqpUrl: { api: 'amqp://coldchain-api-run:x@127.0.0.1:5672/v', dispatcher: '' } }).env.AMQP_URL).username).toMatch(/^coldchain-api/);
  });

  it('every container the test starts is built by containerRun and runArguments (no flag of its own)', () => {
    const spec = readFileSync(join(process.cwd(), 'test/containers/containers.containers-spec.ts'), 'utf8');
    expect(spec).not.toMatch(/'--(env|read-only|tmpfs|volume)'/);
    const runs = spec.match(/podmanOk\(\['run',[^\n]*/g) ?? [];
    // migrate (twice), the CLI, the apps: from runArguments; the image inspection: no network at all.
    expect(runs.filter((line) => line.includes('...runArguments(')).length).toBe(4);
    for (const line of runs.filter((l) => !l.includes('...runArguments('))) expect(line).toContain("'--network', 'none'");
  });

  it('runs the migration step before the apps: the api image, its CLI, db:migrate', () => {
    const { migrate, api, dispatcher } = services;
    expect(migrate.build).toEqual(api.build);
    expect(migrate.image).toBe(api.image);
    expect(migrate.command).toEqual(['node', 'dist/apps/cli/src/main.js', 'db:migrate']);
    expect(migrate.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
    for (const app of [api, dispatcher]) expect(app.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
    const { PORT: _port, OPS_PORT: _ops, AMQP_URL: _amqp, REDIS_URL: _redis, ...shared } = api.environment ?? {};
    expect(migrate.environment).toEqual(shared);
  });

  it('builds both images FROM the NODE_IMAGE build argument, by default the official Node image', () => {
    for (const app of ['api', 'dispatcher']) {
      const file = dockerfile(app);
      const lines = file.split('\n').filter((line) => /^(ARG|FROM) /.test(line));
      expect(lines[0]).toBe('ARG NODE_IMAGE=node:20-bookworm-slim');
      const froms = lines.filter((line) => line.startsWith('FROM '));
      expect(froms).toEqual(['FROM ${NODE_IMAGE} AS build', 'FROM ${NODE_IMAGE} AS runtime']);
      expect(file).toMatch(/^USER node$/m);
      expect(file).toMatch(/npm ci --omit=dev/);
    }
  });
});
