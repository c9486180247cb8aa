import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

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
