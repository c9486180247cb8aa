import autocannon from 'autocannon';
import type { ConfirmChannel } from 'amqplib';
import type { DataSource } from 'typeorm';
import { planPoints, type GatewayPoint, type PointPlan } from '../harness/points';
import { nowMs, sleep } from '../harness/stats';
import { POINTS_PER_MESSAGE } from '../scenarios/ingest';
import { epochNow, publishEvent, type WebhookFixtureContext } from '../scenarios/webhook-fixture';
import { dueUnits, type WindowCollector } from './windows';

/** How often the constant-rate schedulers wake up. */
const TICK_MS = 100;

/** The collector of the current window: the sampler swaps it; the loads always write to the current one. */
export interface CollectorRef {
  current: WindowCollector;
}

// ---------------------------------------------------------------------------------------------- reads

export interface ReadLoad {
  /** Resolves when autocannon has finished (duration elapsed or stopped). */
  done: Promise<void>;
  stop(): void;
}

/**
 * The api read mix with autocannon: every connection cycles through `paths` (device list, a
 * telemetry page, a shipment). With `ratePerS` the load is rate-limited (autocannon `overallRate`,
 * spread over the connections); without it, closed loop. Every response and error is counted in
 * the current window; latencies are autocannon's per-response times (not corrected for
 * coordinated omission). `token()` is read per request, so a refreshed token is picked up.
 */
export function startReads(origin: string, paths: readonly string[], token: () => string, connections: number, seconds: number, ratePerS: number | null, ref: CollectorRef): ReadLoad {
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(origin)) throw new Error(`load goes to loopback only, not ${origin}`);
  let finished: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const instance = autocannon({
    url: origin,
    connections,
    duration: seconds,
    ...(ratePerS !== null ? { overallRate: ratePerS } : {}),
    timeout: 10,
    requests: paths.map((path) => ({
      method: 'GET' as const,
      path,
      setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${token()}` } }),
    })),
  }, () => finished());
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    const c = ref.current;
    if (statusCode >= 200 && statusCode < 300) c.readOk++;
    else c.readNon2xx++;
    c.readLatenciesMs.push(responseTime);
  });
  instance.on('reqError', () => {
    ref.current.readErrors++;
  });
  return { done, stop: () => instance.stop() };
}

// --------------------------------------------------------------------------------------------- ingest

/**
 * Points over RabbitMQ as gateways send them (100 per message, minute by minute across the
 * devices), published to the ingestion exchange with publisher confirms. One endless stream:
 * the capacity phase and the steady phase continue the same window, so every point is unique.
 */
export class IngestFeed {
  private readonly points: Generator<GatewayPoint>;
  published = 0;

  constructor(
    private readonly channel: ConfirmChannel,
    private readonly exchange: string,
    plan: PointPlan,
  ) {
    this.points = planPoints(plan);
  }

  /** Publishes `messages` messages and waits for the broker's confirms. */
  async publish(messages: number): Promise<number> {
    let sent = 0;
    for (let m = 0; m < messages; m++) {
      const chunk: GatewayPoint[] = [];
      for (let i = 0; i < POINTS_PER_MESSAGE; i++) {
        const next = this.points.next();
        if (next.done) throw new Error('ingest: the planned window is exhausted (rate too high for the seeded lifecycles)');
        chunk.push(next.value);
      }
      const ok = this.channel.publish(this.exchange, 'soak.gateway', Buffer.from(JSON.stringify({ points: chunk })), { persistent: true, contentType: 'application/json' });
      if (!ok) await new Promise((resolve) => this.channel.once('drain', resolve));
      sent += chunk.length;
    }
    await this.channel.waitForConfirms();
    this.published += sent;
    return sent;
  }
}

/** Open loop: publishes whole messages at `pointsPerS` until `stopped()`. */
export async function steadyIngest(feed: IngestFeed, pointsPerS: number, stopped: () => boolean, ref: CollectorRef): Promise<void> {
  const start = nowMs();
  let messages = 0;
  while (!stopped()) {
    const due = dueUnits(pointsPerS / POINTS_PER_MESSAGE, nowMs() - start, messages);
    if (due > 0) {
      ref.current.pointsPublished += await feed.publish(due);
      messages += due;
    }
    await sleep(TICK_MS);
  }
}

/** Closed loop for the capacity phase: keeps about `backlog` messages queued until `stopped()`. */
export async function saturateIngest(feed: IngestFeed, queued: () => Promise<number>, backlog: number, stopped: () => boolean): Promise<void> {
  while (!stopped()) {
    if ((await queued()) < backlog) await feed.publish(Math.ceil(backlog / 4));
    else await sleep(20);
  }
}

// --------------------------------------------------------------------------------------------- events

/** Events committed through the transactional outbox; remembers when each was committed. */
export class EventFeed {
  readonly committedAt = new Map<string, number>();
  private n = 0;

  constructor(
    private readonly db: DataSource,
    private readonly ctx: WebhookFixtureContext,
  ) {}

  get committed(): number {
    return this.committedAt.size;
  }

  /** Commits `count` events in one transaction (as a busy api would: several events per commit). */
  async commit(count: number): Promise<void> {
    const ids: string[] = [];
    await this.db.transaction(async (manager) => {
      for (let i = 0; i < count; i++) ids.push((await publishEvent(manager, this.ctx, 'shipment.completed', this.n++)).id);
    });
    const at = epochNow();
    for (const id of ids) this.committedAt.set(id, at);
  }
}

/** Open loop: commits events at `eventsPerS` (one transaction per tick) until `stopped()`. */
export async function steadyEvents(feed: EventFeed, eventsPerS: number, stopped: () => boolean, ref: CollectorRef): Promise<void> {
  const start = nowMs();
  let events = 0;
  while (!stopped()) {
    const due = dueUnits(eventsPerS, nowMs() - start, events);
    if (due > 0) {
      await feed.commit(due);
      events += due;
      ref.current.eventsCommitted += due;
    }
    await sleep(TICK_MS);
  }
}

/** Closed loop for the capacity phase: keeps about `backlog` deliveries outstanding until `stopped()`. */
export async function saturateEvents(feed: EventFeed, endpoints: number, delivered: () => Promise<number>, backlog: number, stopped: () => boolean): Promise<void> {
  while (!stopped()) {
    if (feed.committed * endpoints - (await delivered()) < backlog) await feed.commit(Math.max(1, Math.ceil(backlog / endpoints / 4)));
    else await sleep(20);
  }
}
