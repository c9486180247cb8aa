import type { DataSource } from 'typeorm';
import { parseTypedTime, UUID_PATTERN as UUID, type AccountId } from '@app/vocabulary';
import { WebhookInputError, WebhookNotFoundError, WebhookStateError } from './endpoints.errors';
import { notifyDeliveryWorkers } from './store/webhook-deliveries.repository';
import { findEndpoint } from './store/webhook-endpoints.repository';
import { countRecoverableEvents, failingSince, lockEndpointForRecovery, queueRecoveredDeliveries } from './store/webhook-maintenance.repository';

/** Most events one recovery queues (WEBHOOK_RECOVERY_MAX_EVENTS): a larger backlog takes several runs. */
export const DEFAULT_RECOVERY_MAX_EVENTS = 10_000;

/**
 * A recovery works through its time range in slices of this length, one short transaction each:
 * a statement's cost follows the events of one slice, not of the whole range, and what a slice
 * queued is sent while the next one is read.
 */
export const RECOVERY_SLICE_MS = 3_600_000;

/** The last slice reaches past any clock skew between this process and PostgreSQL. */
const END_OF_TIME = new Date('9999-12-31T23:59:59Z');

export interface WebhookRecoveryOptions {
  /** WEBHOOK_RECOVERY_MAX_EVENTS (default 10,000). */
  maxEvents?: number;
  /** WEBHOOK_RETENTION_DAYS: older event bodies are deleted, so `since` may not reach further back. */
  retentionDays: number;
  /** The clock (tests). */
  now?: () => Date;
}

export interface WebhookRecoveryResult {
  endpoint_id: string;
  since: string;
  /** Deliveries queued by this run, one per event. */
  queued: number;
  /** The most one run queues. */
  limit: number;
  /** The run stopped at `limit`: more events may be waiting; run it again (nothing is queued twice). */
  more: boolean;
  /** With `more`: where the next run can start (nothing before it is left to queue). */
  resume_since: string | null;
}

/** What the panel pre-fills: when the current run of failures began (or the endpoint was disabled), else 24 hours ago. */
export interface WebhookRecoverySuggestion {
  since: string;
  /** The suggestion comes from the endpoint's failures (not the 24-hour default). */
  fromFailures: boolean;
}

/** What a recovery from `since` would queue now (the panel shows it before sending). */
export interface WebhookRecoveryPreview {
  since: string;
  /** Events a run from `since` would queue now, at most `limit`. */
  count: number;
  limit: number;
  /** More than `limit` are waiting: one run queues `limit`, the next the rest. */
  more: boolean;
}

/** The recovery form's quick choices, each a start time to the minute. */
export type WebhookRecoveryPresetKey = 'last-hour' | 'failing-since' | 'last-24-hours';
export interface WebhookRecoveryPreset {
  key: WebhookRecoveryPresetKey;
  since: string;
}

/**
 * A recovery's start time, typed in the panel or given to the CLI: a date and time, UTC unless a
 * zone is given (@app/vocabulary's parseTypedTime, which the panel's filters read with too).
 */
export function parseRecoverySince(value: string): Date {
  const since = parseTypedTime(value);
  if (!since) throw new WebhookInputError('since', 'expected a date and time such as 2026-11-26T06:00 (UTC) or 2026-11-26T07:00+01:00');
  return since;
}

const startOfMinute = (time: number): Date => new Date(Math.floor(time / 60_000) * 60_000);
/** How long a followed preset link keeps its own time (see WebhookRecovery.presets). */
const PRESET_FOLLOW_GRACE_MS = 5 * 60_000;

/**
 * Recovery after an outage (issue 17 item 3): "recover failed deliveries since …" queues, once
 * each, every event of the endpoint's subscribed types since the chosen time that did not get a 2xx
 * from it — deliveries that failed, deliveries cancelled when it was disabled, and events the
 * fan-out never gave it because it was disabled then (read back from the outbox, kept
 * OUTBOX_RETENTION_DAYS). "Once each": an event with a pending or succeeded delivery to the
 * endpoint is skipped, and recoveries of one endpoint are serialised by a lock on its row, so
 * running it twice, or while an earlier recovery is still being delivered, queues nothing twice.
 *
 * Bounded: one run queues at most `maxEvents`, oldest first, working through the range in one-hour
 * slices (one short transaction and one INSERT … SELECT each), and says when it stopped at the
 * limit and where to resume; the dispatcher then sends them within the account's share of delivery slots
 * (WEBHOOK_CONCURRENCY_PER_ACCOUNT, per endpoint WEBHOOK_CONCURRENCY_PER_ENDPOINT), so a large
 * recovery never takes other companies' slots. `since` may reach back WEBHOOK_RETENTION_DAYS.
 */
export class WebhookRecovery {
  readonly maxEvents: number;
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: WebhookRecoveryOptions,
  ) {
    this.maxEvents = options.maxEvents ?? DEFAULT_RECOVERY_MAX_EVENTS;
    this.now = options.now ?? (() => new Date());
  }

  /** The earliest `since` a recovery accepts now. */
  earliest(): Date {
    return new Date(this.now().getTime() - this.options.retentionDays * 86_400_000);
  }

  /** Refuses what `recover` refuses: another account's endpoint, no time, a future time, one past the retention period. */
  private check(accountId: AccountId, endpointId: string, since: Date): void {
    if (!UUID.test(accountId) || !UUID.test(endpointId)) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    if (Number.isNaN(since.getTime())) throw new WebhookInputError('since', 'not a time');
    if (since.getTime() > this.now().getTime()) throw new WebhookInputError('since', 'is in the future');
    if (since.getTime() < this.earliest().getTime()) {
      throw new WebhookInputError('since', `reaches back more than ${this.options.retentionDays} days: older events are no longer stored`);
    }
  }

  /**
   * How many events `recover` would queue from `since` now (one statement, counting at most one
   * more than a run's limit). A disabled endpoint, or another account's, has none.
   */
  async preview(accountId: AccountId, endpointId: string, since: Date): Promise<WebhookRecoveryPreview> {
    this.check(accountId, endpointId, since);
    const count = await countRecoverableEvents(this.dataSource, accountId, endpointId, since, END_OF_TIME, this.maxEvents + 1);
    return { since: since.toISOString(), count: Math.min(count, this.maxEvents), limit: this.maxEvents, more: count > this.maxEvents };
  }

  /**
   * The quick choices: the last hour, since the endpoint started failing (when it did), the last 24
   * hours (within the retention period). `followed` is a relative choice whose link was just
   * followed: it keeps the time its link carried when that is at most PRESET_FOLLOW_GRACE_MS older
   * than the choice's time now, so that the page still marks it as chosen when the minute turned
   * between showing the link and following it.
   */
  presets(suggestion: WebhookRecoverySuggestion, followed?: WebhookRecoveryPreset): WebhookRecoveryPreset[] {
    const now = this.now().getTime();
    const earliest = this.earliest().getTime();
    const ago = (key: WebhookRecoveryPresetKey, ms: number): string => {
      const since = (now - ms > earliest ? startOfMinute(now - ms) : startOfMinute(earliest + 60_000)).toISOString();
      if (followed?.key !== key) return since;
      const behind = Date.parse(since) - Date.parse(followed.since);
      return behind >= 0 && behind <= PRESET_FOLLOW_GRACE_MS && Date.parse(followed.since) > earliest ? followed.since : since;
    };
    return [
      { key: 'last-hour' as const, since: ago('last-hour', 3_600_000) },
      ...(suggestion.fromFailures ? [{ key: 'failing-since' as const, since: suggestion.since }] : []),
      { key: 'last-24-hours' as const, since: ago('last-24-hours', 86_400_000) },
    ];
  }

  async recover(accountId: AccountId, endpointId: string, since: Date): Promise<WebhookRecoveryResult> {
    this.check(accountId, endpointId, since);
    const end = this.now().getTime();
    let queued = 0;
    for (let from = since; ; ) {
      const last = from.getTime() + RECOVERY_SLICE_MS >= end;
      const to = last ? END_OF_TIME : new Date(from.getTime() + RECOVERY_SLICE_MS);
      const slice = await this.dataSource.transaction(async (manager) => {
        const endpoint = await lockEndpointForRecovery(manager, accountId, endpointId);
        if (!endpoint) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
        if (!endpoint.enabled) return null;
        const count = await queueRecoveredDeliveries(manager, accountId, endpointId, from, to, this.maxEvents - queued);
        if (count > 0) await notifyDeliveryWorkers(manager); // heard on commit
        return count;
      });
      // Disabled before the first slice: refused; disabled again meanwhile (its new deliveries were cancelled): stop.
      if (slice === null && from === since) throw new WebhookStateError('endpoint_disabled', 'the endpoint is disabled; enable it first');
      queued += slice ?? 0;
      if (queued >= this.maxEvents) return this.result(endpointId, since, queued, from);
      if (last || slice === null) return this.result(endpointId, since, queued, null);
      from = to;
    }
  }

  private result(endpointId: string, since: Date, queued: number, resume: Date | null): WebhookRecoveryResult {
    return { endpoint_id: endpointId, since: since.toISOString(), queued, limit: this.maxEvents, more: resume !== null, resume_since: resume?.toISOString() ?? null };
  }

  /**
   * Where a recovery should start: the earlier of when the endpoint's current run of failures began
   * and when it was disabled (so the events that failed before the disable come back too), to the
   * minute; 24 hours ago when neither is known. Never before the retention period.
   */
  async suggestSince(accountId: AccountId, endpointId: string, disabledAt?: Date | null): Promise<WebhookRecoverySuggestion> {
    if (!UUID.test(accountId) || !UUID.test(endpointId)) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    const endpoint = await findEndpoint(this.dataSource, accountId, endpointId);
    if (!endpoint) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    const failing = await failingSince(this.dataSource, accountId, endpointId);
    const known = [failing, disabledAt ?? endpoint.disabled_at].filter((time): time is Date => time instanceof Date);
    const earliest = this.earliest().getTime();
    if (known.length === 0) return { since: startOfMinute(this.now().getTime() - 86_400_000).toISOString(), fromFailures: false };
    const start = Math.min(...known.map((time) => time.getTime()));
    // Clamped to the retention period: the next minute, so the pre-filled form is still accepted.
    const since = start > earliest ? startOfMinute(start) : startOfMinute(earliest + 60_000);
    return { since: since.toISOString(), fromFailures: true };
  }
}
