import { randomBytes } from 'node:crypto';
import { aisTopology, ingestTopology } from '@app/domain';
import { eventBrokerNames } from '../adapters/webhooks.adapter';
import { deleteBrokerNames } from './broker';

/**
 * The environment the harness starts the api and the dispatcher with (bench and soak): fresh keys,
 * the run's own database and AMQP prefix, a limiter that never refuses, `LOG_LEVEL=warn`, private
 * webhook targets allowed, no per-account cap below the dispatcher's concurrency and, when given,
 * the throwaway CA of the loopback receiver.
 */
export function benchAppEnv(databaseUrl: string, amqpUrl: string, amqpPrefix: string, caFile?: string): NodeJS.ProcessEnv {
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
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1',
    // WEBHOOK_CONCURRENCY's default: the per-account cap (a quarter of it by default, a fairness bound
    // between tenants) does not bind, as the bare loop that `webhooks` compares with has none. With the
    // default the dispatcher had 16 requests in flight against the loop's 40 (BENCHMARKS.md, issue 26).
    // dispatchers-one-tenant sets its own; the fairness e2e tests cover the cap.
    WEBHOOK_CONCURRENCY_PER_ACCOUNT: '64',
    ...(caFile ? { NODE_EXTRA_CA_CERTS: caFile } : {}),
  };
}

/** Deletes every queue and exchange the apps declared under the run's prefix (feeds and event pipeline). */
export async function deleteRunBrokerNames(root: string, amqpUrl: string, amqpPrefix: string): Promise<void> {
  const feeds = [ingestTopology(amqpPrefix), aisTopology(amqpPrefix)];
  const events = await eventBrokerNames(root, amqpPrefix);
  await deleteBrokerNames(amqpUrl, {
    queues: [...feeds.flatMap((feed) => [feed.queue, feed.deadLetterQueue]), ...events.queues],
    exchanges: [...feeds.flatMap((feed) => [feed.exchange, feed.deadLetterExchange]), ...events.exchanges],
  });
}
