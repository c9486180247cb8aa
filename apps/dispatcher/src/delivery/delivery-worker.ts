import { newId, PgListener } from '@app/database';
import { claimWindow, decryptSecret, NO_SLOT_GRANTS, WEBHOOK_DELIVERIES_CHANNEL, type SlotGrants } from '@app/webhooks';
import type { AppLogger } from '@app/observability';
import type { AttemptRecorder } from './attempt-recorder';
import type { ClaimedDelivery, AttemptPlan, DeliveryStore, RecordedAttempt } from './delivery-store';
import { ClaimCursor } from './claim-cursor';
import { leftBehindBy, mergeLeftBehind, type LeftBehind } from './claim-left-behind';
import { nextEndpointToLaunch, SlotUsage } from './fair-share';
import { MAX_RETRIES, retryDelayMs } from './retry-policy';
import type { AttemptResult, WebhookSender } from './webhook-sender';

export interface DeliveryWorkerOptions {
  /** Where the worker LISTENs: a direct connection (DATABASE_DIRECT_URL), never a transaction pooler. */
  listenUrl: string;
  secretsKey: Buffer;
  retryScheduleSeconds: number[];
  timeoutMs: number;
  /** Attempts in flight in this process. */
  concurrency: number;
  /**
   * Attempts in flight per endpoint, every replica together: each process makes at most what its
   * claims were granted in the database (webhook_slot_grants), and the grants of all of them
   * together never exceed this.
   */
  perEndpoint: number;
  /**
   * Attempts in flight per account (all replicas together, as `perEndpoint`): a hard cap. Below it,
   * slots are shared fairly among the accounts with due work (fair-share.ts).
   */
  perAccount: number;
  /** Successes waiting to be recorded, beyond which no more deliveries are claimed. */
  maxUnrecorded?: number;
  pollIntervalMs: number;
  logger: AppLogger;
  onAttempt?(result: AttemptResult, plan: AttemptPlan): void;
  onEndpointDisabled?(endpointId: string): void;
  onInFlight?(count: number): void;
  onDeferred?(delivery: ClaimedDelivery, result: AttemptResult): void;
}

/** Lease on a claimed delivery: longer than any attempt, so only a dead worker's claims expire. */
const LEASE_MARGIN_MS = 60_000;
/** A delivery that never reached its endpoint (no local slot in time; secrets unreadable) is tried again this much later, uncounted. */
const DEFER_MS = 1_000;

/**
 * Sends due deliveries: claims as many as there are free slots (bounded globally, per account and
 * per endpoint, and shared max-min fairly among the accounts with due work, with the last free slot
 * kept for a quick account that has nothing in flight — fair-share.ts — so neither a few tenants
 * nor one endpoint can hold every slot), attempts each,
 * records the outcome, and schedules the retry in PostgreSQL. Woken by
 * NOTIFY on new deliveries, by its own retry timers and by a poll; everything it needs to resume
 * lives in the database, so a restart loses nothing.
 *
 * A slot (global and per endpoint) is an HTTP request in flight: it frees when the response is in,
 * while the outcome is recorded in the recorder's next batch. Until then the claim's lease keeps
 * the delivery from being claimed again, and a crash before the record only means the lease runs
 * out and the delivery is sent once more (at least once), never lost. Unrecorded successes are
 * bounded (`maxUnrecorded`): past it the worker claims nothing until the database catches up.
 *
 * Claims run ahead of the slots: up to `perEndpoint` more deliveries per endpoint (and
 * `concurrency` more in all) are held, leased like the ones in flight, so a freed slot is refilled
 * at once and a claim round trip serves many slots. On stop the held ones are handed back (due
 * now), so another instance need not wait for their lease. While that reserve is full, a claim
 * still takes deliveries of the accounts holding less than an equal share of it: a stalled tenant's
 * held backlog never keeps another tenant's new deliveries from being claimed.
 *
 * A claim visits a window of the endpoints with pending deliveries (claimWindow: max(limit, 64)),
 * from a cursor kept here (ClaimCursor) on a ring that spreads each account's endpoints round it,
 * so its cost follows the window, not the whole backlog, and a window still spans many accounts.
 * A pump claims window after window while claims come back short, each twice as wide as the last,
 * until it has been once round the ring.
 */
export class DeliveryWorker {
  private readonly busy = new Map<string, number>();
  /** In flight per account. */
  private readonly busyAccounts = new Map<string, number>();
  /** Held per account (claimed, not yet sent). */
  private readonly heldAccounts = new Map<string, number>();
  /** Attempts this process may make at once per endpoint and per account (granted by its last claim). */
  private grants: SlotGrants = NO_SLOT_GRANTS;
  /** Claimed, not yet sent: launched the moment a slot of their endpoint frees, without a claim round trip. */
  private readonly held = new Map<string, ClaimedDelivery[]>();
  private heldCount = 0;
  /** When each account with work in hand last got a slot (the fair share's round robin). */
  private readonly lastServed = new Map<string, number>();
  private turn = 0;
  private readonly usage = new SlotUsage();
  /** Per account, the sum of its attempts' start times (ms): their slot time so far is running × now − this. */
  private readonly startedAt = new Map<string, number>();
  /** The last pump stopped claiming because too many successes await their record. */
  private waitingForRecorder = false;
  private readonly active = new Set<Promise<void>>();
  private readonly listener: PgListener;
  private inFlight = 0;
  private stopped = true;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  /** Other live dispatchers, as of the last claim (until the first one: assume some). */
  private otherDispatchers = 1;
  /** Where the last claim may have left due deliveries behind (see mayClaimMore). */
  private leftBehind: LeftBehind = { all: true, endpoints: new Set(), accounts: new Set() };
  /** Where the next claim's walk over the endpoints with pending deliveries starts. */
  private readonly cursor = new ClaimCursor();

  constructor(
    private readonly store: DeliveryStore,
    private readonly recorder: AttemptRecorder,
    private readonly sender: WebhookSender,
    private readonly options: DeliveryWorkerOptions,
  ) {
    // This process's own fan-outs wake it directly (the consumer's onDeliveriesCreated): their NOTIFY would only claim again for nothing.
    this.listener = new PgListener(options.listenUrl, WEBHOOK_DELIVERIES_CHANNEL, (payload) => {
      if (payload !== this.store.workerId) this.trigger();
    }, options.logger);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.listener.start();
    this.recorder.start();
    this.pollTimer = setInterval(() => this.trigger(), this.options.pollIntervalMs);
    this.pollTimer.unref();
    this.trigger();
  }

  /** Drain: claims nothing more and waits for the attempts in flight to finish and be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wakeTimers.clear();
    await this.listener.stop();
    await this.pumping;
    await this.releaseHeld();
    await Promise.all([...this.active]);
    await this.recorder.stop();
    await this.retire();
  }

  trigger(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
    });
  }

  private async pump(): Promise<void> {
    const { concurrency, perEndpoint } = this.options;
    do {
      this.pumpAgain = false;
      this.cursor.beginRound();
      let round: LeftBehind | null = null;
      let shortClaims = 0;
      try {
        for (;;) {
          this.waitingForRecorder = this.recorder.backlog >= this.maxUnrecorded;
          if (this.stopped || this.waitingForRecorder) break;
          const room = 2 * concurrency - this.inFlight - this.heldCount;
          const busyAccounts = this.claimedPerAccount();
          // Reserve full (other accounts' stalled work fills it): still claim for the accounts holding
          // less than an equal share of it, up to `concurrency` beyond the reserve.
          const underShareOnly = room <= 0;
          const limit = underShareOnly ? Math.min(concurrency, 3 * concurrency - this.inFlight - this.heldCount) : room;
          if (limit <= 0) {
            this.mayHaveLeftAll();
            break;
          }
          const perAccount = underShareOnly ? Math.min(2 * this.options.perAccount, Math.ceil((2 * concurrency) / (busyAccounts.size + 1))) : 2 * this.options.perAccount;
          // A copy: with nothing held, claimedPerEndpoint() is the live in-flight map, which responses change during the claim.
          const inHandEndpoints = new Map(this.claimedPerEndpoint());
          // Also gives up the grants of keys it holds nothing of any more (in the claim's transaction; kept if it fails).
          const { claimed, grants, otherDispatchers, resumeAfter } = await this.store.queue.claimDue({
            workerId: this.store.workerId,
            limit,
            holdPerEndpoint: 2 * perEndpoint,
            holdPerAccount: perAccount,
            inHandEndpoints,
            inHandAccounts: busyAccounts,
            perEndpoint,
            perAccount: this.options.perAccount,
            leaseMs: this.options.timeoutMs + LEASE_MARGIN_MS,
            after: this.cursor.position,
            window: claimWindow(limit, shortClaims),
          });
          const wentRound = this.cursor.advance(resumeAfter);
          this.grants = grants;
          this.otherDispatchers = otherDispatchers;
          for (const delivery of claimed) this.hold(delivery);
          // What every window of this round may have left behind, not only the last one's.
          const left = leftBehindBy(claimed, underShareOnly || claimed.length >= limit, { endpoints: inHandEndpoints, accounts: busyAccounts }, 2 * perEndpoint, perAccount);
          round = round ? mergeLeftBehind(round, left) : left;
          this.leftBehind = round;
          this.launchHeld();
          // A short claim only says its window had no more: walk on, wider, until the round has seen
          // every endpoint. A claim for the accounts under their share walks the round too (the
          // account it is for may be anywhere on the ring), and its limit shrinks as it fills.
          if (wentRound && (underShareOnly || claimed.length < limit)) break;
          if (claimed.length < limit) shortClaims += 1;
        }
        // Stopped claiming with room left unused (unrecorded successes) or none at all: more may be due.
        if (this.waitingForRecorder || this.stopped) this.mayHaveLeftAll();
      } catch (error) {
        this.mayHaveLeftAll();
        this.options.logger.warn({ error: message(error) }, 'claiming due deliveries failed; will retry');
        return;
      }
    } while (this.pumpAgain && !this.stopped);
  }

  /** The pump stopped without a claim that could tell: any response may find due work. */
  private mayHaveLeftAll(): void {
    this.leftBehind = { ...this.leftBehind, all: true };
  }

  /**
   * Whether a response (a freed slot) is worth a claim: with other dispatchers live, always (the
   * claim also gives back grants they count against their own holds); alone, only where the last
   * claim may have left due deliveries behind. Anything due since then woke the worker by NOTIFY,
   * a retry by its timer, and the poll finds the rest (rows another transaction had locked, say):
   * at low load this spares the claim that used to follow every response and found nothing.
   */
  private mayClaimMore(delivery: ClaimedDelivery): boolean {
    const { all, endpoints, accounts } = this.leftBehind;
    return this.otherDispatchers > 0 || all || endpoints.has(delivery.endpoint_id) || accounts.has(delivery.account_id);
  }

  /** Gives up every grant (on stop); if that fails, they are forgotten once this process's lease runs out. */
  private async retire(): Promise<void> {
    try {
      await this.store.queue.retire(this.store.workerId);
      this.grants = NO_SLOT_GRANTS;
    } catch (error) {
      this.options.logger.warn({ error: message(error) }, 'could not give up the delivery slots granted to this dispatcher; other replicas get them once its lease runs out');
    }
  }

  /** In flight or held, per endpoint: what the next claim must count against each endpoint's share. */
  private claimedPerEndpoint(): Map<string, number> {
    if (this.heldCount === 0) return this.busy;
    const claimed = new Map(this.busy);
    for (const [endpointId, queue] of this.held) claimed.set(endpointId, (claimed.get(endpointId) ?? 0) + queue.length);
    return claimed;
  }

  /** In flight or held, per account: the next claim takes at most the rest of each account's share. */
  private claimedPerAccount(): Map<string, number> {
    const claimed = new Map(this.busyAccounts);
    for (const [accountId, count] of this.heldAccounts) claimed.set(accountId, (claimed.get(accountId) ?? 0) + count);
    return claimed;
  }

  private hold(delivery: ClaimedDelivery): void {
    const queue = this.held.get(delivery.endpoint_id);
    if (queue) queue.push(delivery);
    else this.held.set(delivery.endpoint_id, [delivery]);
    this.heldCount += 1;
    increment(this.heldAccounts, delivery.account_id, 1);
  }

  /** Sends held deliveries while there are free slots, globally, for their account and for their endpoint, fairly among accounts. */
  private launchHeld(): void {
    if (this.stopped) return;
    const { concurrency, perEndpoint, perAccount } = this.options;
    const now = Date.now();
    while (this.heldCount > 0) {
      const endpointId = nextEndpointToLaunch(this.held, {
        concurrency,
        perEndpoint,
        perAccount,
        inFlight: this.inFlight,
        busyEndpoints: this.busy,
        busyAccounts: this.busyAccounts,
        endpointBound: (endpointId) => Math.min(perEndpoint, this.grants.endpoints.get(endpointId) ?? 0),
        accountBound: (accountId) => Math.min(perAccount, this.grants.accounts.get(accountId) ?? 0),
        lastServed: this.lastServed,
        used: (accountId) => this.usage.used(accountId, now) + (this.busyAccounts.get(accountId) ?? 0) * now - (this.startedAt.get(accountId) ?? 0),
        isSlow: (accountId) => this.usage.isSlow(accountId, now),
      });
      if (endpointId === null) return;
      const queue = this.held.get(endpointId) as ClaimedDelivery[];
      const delivery = queue.shift() as ClaimedDelivery;
      if (queue.length === 0) this.held.delete(endpointId);
      this.heldCount -= 1;
      increment(this.heldAccounts, delivery.account_id, -1);
      this.lastServed.set(delivery.account_id, ++this.turn);
      this.launch(delivery);
    }
  }

  /** Hands held deliveries back, due now; if that fails their lease runs out instead. */
  private async releaseHeld(): Promise<void> {
    const deliveries = [...this.held.values()].flat();
    this.held.clear();
    this.heldAccounts.clear();
    this.lastServed.clear();
    this.heldCount = 0;
    if (deliveries.length === 0) return;
    try {
      await this.store.queue.release(deliveries, 0);
    } catch (error) {
      this.options.logger.warn({ error: message(error), deliveries: deliveries.length }, 'could not hand back claimed deliveries; they are due again when their lease runs out');
    }
  }

  private get maxUnrecorded(): number {
    return this.options.maxUnrecorded ?? this.options.concurrency * 2;
  }

  private launch(delivery: ClaimedDelivery): void {
    this.inFlight += 1;
    increment(this.busy, delivery.endpoint_id, 1);
    increment(this.busyAccounts, delivery.account_id, 1);
    this.options.onInFlight?.(this.inFlight);
    const launchedAt = Date.now();
    increment(this.startedAt, delivery.account_id, launchedAt);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      increment(this.busy, delivery.endpoint_id, -1);
      increment(this.busyAccounts, delivery.account_id, -1);
      increment(this.startedAt, delivery.account_id, -launchedAt);
      this.usage.note(delivery.account_id, Date.now() - launchedAt);
      if (!this.busyAccounts.has(delivery.account_id) && !this.heldAccounts.has(delivery.account_id)) this.lastServed.delete(delivery.account_id);
      this.options.onInFlight?.(this.inFlight);
      this.launchHeld();
      // Claim again once half of the endpoint's reserve is used, not after every response.
      if ((this.held.get(delivery.endpoint_id)?.length ?? 0) <= this.options.perEndpoint / 2 && this.mayClaimMore(delivery)) this.trigger();
    };
    const task = this.attempt(delivery, release)
      .catch((error: unknown) => this.options.logger.error({ error: message(error), delivery: delivery.id }, 'delivery attempt failed unexpectedly'))
      .finally(() => {
        release();
        this.active.delete(task);
        if (this.waitingForRecorder) this.trigger();
      });
    this.active.add(task);
  }

  /** `release` frees the attempt's slot once the response is in; the task ends once it is recorded. */
  private async attempt(delivery: ClaimedDelivery, release: () => void): Promise<void> {
    const result = await this.send(delivery);
    release();
    if (result.outcome === 'deferred') return this.defer(delivery, result);
    const plan = this.plan(delivery, result);
    const recorded = await this.record(delivery, result, plan);
    this.options.onAttempt?.(result, plan);
    if (recorded?.disabledEndpoint) {
      this.options.logger.warn({ endpoint: delivery.endpoint_id }, 'webhook endpoint disabled after consecutive failures');
      this.options.onEndpointDisabled?.(delivery.endpoint_id);
    }
    if (plan.nextAttemptAt) this.wakeAt(plan.nextAttemptAt.getTime());
  }

  private async send(delivery: ClaimedDelivery): Promise<AttemptResult> {
    let secret: string;
    let previousSecret: string | null;
    try {
      // Read at claim time: a rotated secret is used from the next attempt on.
      secret = decryptSecret(this.options.secretsKey, delivery.secret_ciphertext, delivery.endpoint_id);
      // Only while the rotation window runs (the claim says), and only Standard Webhooks requests carry it.
      const previous = delivery.signature_format === 'standard-webhooks' ? delivery.previous_secret_ciphertext : null;
      previousSecret = previous ? decryptSecret(this.options.secretsKey, previous, delivery.endpoint_id) : null;
    } catch (error) {
      // SECRETS_KEY does not open the stored secret: this deployment's fault, not the endpoint's (no failure counted).
      this.options.logger.error({ error: message(error), endpoint: delivery.endpoint_id }, 'cannot decrypt the endpoint signing secret; check SECRETS_KEY');
      return { deliveryId: newId(), attemptedAt: new Date(), durationMs: 0, statusCode: null, error: 'signing secret unreadable', outcome: 'deferred', retryAfterSeconds: 60 };
    }
    return this.sender.send({
      url: delivery.url,
      secret,
      previousSecret,
      signatureFormat: delivery.signature_format,
      eventType: delivery.event_type,
      eventId: delivery.event_id,
      body: delivery.body,
    });
  }

  /**
   * Nothing reached the endpoint: the delivery is due again shortly, its attempt count and the
   * endpoint's failure count untouched. If the database is away the lease makes it due instead.
   */
  private async defer(delivery: ClaimedDelivery, result: AttemptResult): Promise<void> {
    this.options.onDeferred?.(delivery, result);
    const delayMs = result.retryAfterSeconds === null ? DEFER_MS : result.retryAfterSeconds * 1000;
    try {
      await this.store.queue.release([delivery], delayMs);
    } catch (error) {
      this.options.logger.warn({ error: message(error), delivery: delivery.id }, 'could not hand back a deferred delivery; due again when its lease runs out');
    }
    this.wakeAt(Date.now() + delayMs);
  }

  private plan(delivery: ClaimedDelivery, result: AttemptResult): AttemptPlan {
    if (result.outcome === 'deferred') throw new Error('a deferred attempt has no plan');
    if (result.outcome === 'succeeded') return { outcome: 'succeeded', status: 'succeeded', nextAttemptAt: null };
    const retry = delivery.attempts + 1;
    if (result.outcome === 'retry' && retry <= MAX_RETRIES) {
      const delay = retryDelayMs(this.options.retryScheduleSeconds, retry, result.retryAfterSeconds);
      return { outcome: 'retry', status: 'pending', nextAttemptAt: new Date(Date.now() + delay) };
    }
    return { outcome: 'failed', status: 'failed', nextAttemptAt: null };
  }

  /**
   * A few quick tries; if the database stays away the attempt goes unrecorded and the lease
   * makes the delivery due again later (one extra attempt, never a lost delivery).
   */
  private async record(delivery: ClaimedDelivery, result: AttemptResult, plan: AttemptPlan): Promise<RecordedAttempt | null> {
    if (plan.outcome === 'succeeded') {
      try {
        await this.recorder.recordSuccess(delivery, result);
        return { applied: true, disabledEndpoint: false };
      } catch (error) {
        this.options.logger.error({ error: message(error), delivery: delivery.id }, 'could not record a delivery attempt; the lease will retry it');
        return null;
      }
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.recorder.recordFailure(delivery, result, plan);
      } catch (error) {
        if (attempt >= 3) {
          this.options.logger.error({ error: message(error), delivery: delivery.id }, 'could not record a delivery attempt; the lease will retry it');
          return null;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
      }
    }
  }

  /** The poll finds every due retry; a timer only makes a retry due sooner than the next poll punctual. */
  private wakeAt(time: number): void {
    if (this.stopped) return;
    const delay = time - Date.now();
    if (delay <= 0) return this.trigger();
    if (delay >= this.options.pollIntervalMs) return;
    const timer = setTimeout(() => {
      this.wakeTimers.delete(timer);
      this.trigger();
    }, delay + 5);
    timer.unref();
    this.wakeTimers.add(timer);
  }
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const value = (counts.get(key) ?? 0) + by;
  if (value > 0) counts.set(key, value);
  else counts.delete(key);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
