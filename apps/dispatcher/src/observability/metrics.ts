import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface BacklogSource {
  backlog(): Promise<{ due: number; oldestDueAgeSeconds: number; disabledEndpoints: number }>;
}

/** Prometheus metrics of the dispatcher, served on DISPATCHER_PORT at /metrics. */
export class DispatcherMetrics {
  readonly registry = new Registry();
  readonly eventsConsumed: Counter<'outcome'>;
  readonly eventLag: Histogram;
  readonly deliveriesCreated: Counter;
  readonly attempts: Counter<'outcome'>;
  readonly deliveriesClosed: Counter<'outcome'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly inFlight: Gauge;
  readonly endpointsAutoDisabled: Counter;
  readonly attemptsDeferred: Counter;

  constructor() {
    this.registry.setDefaultLabels({ app: 'dispatcher' });
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.eventsConsumed = new Counter({ name: 'webhook_events_consumed_total', help: 'Event messages consumed, by outcome (fanned_out, dead_lettered)', labelNames: ['outcome'], registers });
    this.eventLag = new Histogram({
      name: 'webhook_event_lag_seconds',
      help: 'From the event creation to its fan-out into deliveries (outbox + broker lag)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300],
      registers,
    });
    this.deliveriesCreated = new Counter({ name: 'webhook_deliveries_created_total', help: 'Deliveries created by event fan-out', registers });
    this.attempts = new Counter({ name: 'webhook_attempts_total', help: 'Delivery attempts, by outcome (succeeded, retry, failed)', labelNames: ['outcome'], registers });
    this.deliveriesClosed = new Counter({ name: 'webhook_deliveries_total', help: 'Deliveries closed, by outcome (succeeded, failed)', labelNames: ['outcome'], registers });
    this.attemptDuration = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Attempt latency (connect, TLS, until response headers), by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.inFlight = new Gauge({ name: 'webhook_attempts_in_flight', help: 'Attempts in flight in this process', registers });
    this.attemptsDeferred = new Counter({
      name: 'webhook_attempts_deferred_total',
      help: 'Deliveries put back without an attempt (no local connection slot in time, unreadable signing secret): not counted against the endpoint',
      registers,
    });
    this.endpointsAutoDisabled = new Counter({ name: 'webhook_endpoints_auto_disabled_total', help: 'Endpoints disabled after 20 consecutive failures', registers });
  }

  /** Messages waiting in the events queue, read from RabbitMQ at scrape time (NaN, and `onError`, when it cannot be read). */
  registerQueueDepth(read: () => Promise<number | null>, onError: (error: unknown) => void = () => undefined): void {
    new Gauge({
      name: 'webhook_event_queue_messages',
      help: 'Event messages waiting in the dispatcher queue (broker lag)',
      registers: [this.registry],
      async collect() {
        this.set(
          (await read().catch((error: unknown) => {
            onError(error);
            return null;
          })) ?? Number.NaN,
        );
      },
    });
  }

  /** Gauges read from PostgreSQL at scrape time (one query per scrape for all three; NaN, and `onError`, when it fails). */
  registerBacklog(source: BacklogSource, onError: (error: unknown) => void = () => undefined): void {
    let pending: ReturnType<BacklogSource['backlog']> | null = null;
    const read = () =>
      (pending ??= source
        .backlog()
        .catch((error: unknown) => {
          onError(error);
          return { due: Number.NaN, oldestDueAgeSeconds: Number.NaN, disabledEndpoints: Number.NaN };
        })
        .finally(() => setImmediate(() => (pending = null))));
    const registers = [this.registry];
    new Gauge({ name: 'webhook_deliveries_due', help: 'Deliveries due and not yet claimed (delivery queue depth)', registers, async collect() { this.set((await read()).due); } });
    new Gauge({ name: 'webhook_deliveries_oldest_due_age_seconds', help: 'How long the oldest due delivery has waited (delivery lag)', registers, async collect() { this.set((await read()).oldestDueAgeSeconds); } });
    new Gauge({ name: 'webhook_endpoints_disabled', help: 'Disabled webhook endpoints', registers, async collect() { this.set((await read()).disabledEndpoints); } });
  }
}
