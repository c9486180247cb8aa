import type { INestApplication } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { type AppConfig, loadConfig } from '@app/config';
import { writeOutboxEvent, type EventEnvelope, type EventType } from '@app/events';
import { createLogger } from '@app/observability';
import { verifyWebhookRequest } from '@app/webhook-kit';
import { WebhookEndpointsService, type CreatedWebhookEndpoint } from '@app/webhooks';
import { OutboxRelay } from '../../../apps/api/src/outbox/outbox-relay';
import { createDispatcherApp } from '../../../apps/dispatcher/src/dispatcher-app';
import { startApi, startListeningApi, type TestApi } from '../../support/api';
import { createAccount, dataSourceOf } from '../../support/fixtures';
import { generateTestCertificate, HttpsReceiver, type ReceivedWebhook, type TestCertificate } from '../../support/https-receiver';
import { waitFor } from '../../support/wait';
import type { AccountId } from '@app/vocabulary';

/**
 * The pipeline the webhook-dispatcher-*.e2e-spec.ts suites run against: the api (outbox relay),
 * RabbitMQ, a dispatcher and an HTTPS receiver. Each suite makes its own harness and calls
 * setUp() in beforeAll, restoreDispatcher() in afterEach and tearDown() in afterAll.
 */

/** WEBHOOK_CONCURRENCY_PER_ENDPOINT of the default dispatcher. */
export const PER_ENDPOINT = 2;

export interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  event_id: string;
  origin: string;
  body: Buffer;
  next_attempt_at: Date | null;
  /** Until when a dispatcher holds the delivery (claimed, or handed back for later); null: not leased. */
  lease_until: Date | null;
  last_status_code: number | null;
  last_error: string | null;
}

export interface AttemptRow {
  id: string;
  attempt_number: number;
  outcome: string;
  status_code: number | null;
  error: string | null;
  attempted_at: Date;
  duration_ms: number;
}

export class WebhookDispatcherHarness {
  certificate!: TestCertificate;
  receiver!: HttpsReceiver;
  api!: TestApi;
  relay!: OutboxRelay;
  dataSource!: DataSource;
  service!: WebhookEndpointsService;
  config!: AppConfig;
  /** The dispatcher started last (closed after stopDispatcher() until the next start). */
  dispatcher!: INestApplication;
  /** The api's address when it listens (`listening`: for a browser); null otherwise. */
  base: string | null = null;
  /** The config overrides of the running dispatcher; null while none runs. */
  private running: Partial<AppConfig> | null = null;

  constructor(private readonly options: { listening?: boolean } = {}) {}

  async setUp(): Promise<void> {
    this.certificate = generateTestCertificate();
    this.receiver = await HttpsReceiver.start(this.certificate);
    if (this.options.listening) {
      const listening = await startListeningApi({ OUTBOX_POLL_INTERVAL_MS: '200' });
      this.api = listening;
      this.base = listening.base;
    } else {
      this.api = await startApi({ OUTBOX_POLL_INTERVAL_MS: '200' });
    }
    this.relay = this.api.app.get(OutboxRelay);
    await this.relay.waitUntilConnected();
    this.dataSource = dataSourceOf(this.api.app);
    this.config = loadConfig({
      ...process.env,
      WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0',
      // Generous, so that a slow answer on a loaded machine never turns into a timeout and an extra
      // attempt; the timeout test runs a dispatcher of its own with a short one.
      WEBHOOK_TIMEOUT_MS: '10000',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(PER_ENDPOINT),
    });
    this.service = new WebhookEndpointsService(this.dataSource, { secretsKey: this.config.secretsKey, allowPrivateTargets: true });
    await this.startDispatcher();
  }

  /** For afterEach: a test that stopped or replaced the dispatcher and failed midway must not fail the next ones too. */
  async restoreDispatcher(): Promise<void> {
    if (this.running !== null && Object.keys(this.running).length === 0) return;
    if (this.running !== null) await this.stopDispatcher();
    await this.startDispatcher();
  }

  async tearDown(): Promise<void> {
    if (this.running !== null) await this.stopDispatcher();
    await this.api?.close();
    await this.receiver?.close();
  }

  readonly startDispatcher = async (overrides: Partial<AppConfig> = {}): Promise<void> => {
    this.dispatcher = await createDispatcherApp({ ...this.config, ...overrides }, createLogger('silent', 'dispatcher-test'), { ca: this.certificate.cert });
    this.running = overrides;
  };

  readonly stopDispatcher = async (): Promise<void> => {
    this.running = null;
    await this.dispatcher.close();
  };

  readonly endpoint = async (path: string, events: EventType[] = ['alarm.created'], accountId?: AccountId): Promise<CreatedWebhookEndpoint & { path: string }> => {
    const account = accountId ?? (await createAccount(this.dataSource, `Receiver ${path}`));
    const created = await this.service.create(account, { url: this.receiver.url(path), events });
    return { ...created, path };
  };

  /**
   * The first attempt to the endpoint answers 500 after rotating its secret, so the retry is the
   * first attempt under the new secret. Returns a reader of the new secret (empty until then).
   */
  readonly rotateBeforeRetry = (hook: CreatedWebhookEndpoint, path: string): (() => string) => {
    let rotated = '';
    this.receiver.script(path, [
      {
        status: 500,
        before: async () => {
          rotated = (await this.service.rotateSecret(hook.account_id, hook.id)).signing_secret;
        },
      },
    ]);
    return () => rotated;
  };

  readonly publish = async (accountId: AccountId, type: EventType = 'alarm.created', data: Record<string, unknown> = { message: 'too warm' }): Promise<EventEnvelope> => {
    const envelope = await this.dataSource.transaction((manager) => writeOutboxEvent(manager, { accountId, type, aggregateType: type.split('.')[0], aggregateId: 'agg', data }));
    await this.relay.flush();
    return envelope;
  };

  readonly deliveries = async (endpointId: string): Promise<DeliveryRow[]> =>
    this.dataSource.query('SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at, id', [endpointId]);

  readonly attempts = async (deliveryId: string): Promise<AttemptRow[]> =>
    this.dataSource.query('SELECT * FROM webhook_attempts WHERE webhook_delivery_id = $1 ORDER BY attempt_number', [deliveryId]);

  readonly settled = async (endpointId: string, eventId: string, timeoutMs?: number): Promise<DeliveryRow> =>
    waitFor(
      `delivery of ${eventId} to close`,
      async () => (await this.deliveries(endpointId)).find((d) => d.event_id === eventId && d.status !== 'pending'),
      timeoutMs,
    );

  readonly verifies = (received: ReceivedWebhook, secret: string): boolean => verifyWebhookRequest(received.headers, received.rawBody, [secret]) !== null;
}
