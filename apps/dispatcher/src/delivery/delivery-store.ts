import type { DataSource } from 'typeorm';
import { execSql, newId, type SqlExecutor } from '@app/database';
import { poolQuery } from '@app/database/pool-query';
import type { DomainEventMessage } from '@app/events';
import { ATTEMPTS_KEPT_PER_ENDPOINT, cancelPendingDeliveries, WEBHOOK_DELIVERIES_CHANNEL } from '@app/webhooks';
import { AUTO_DISABLE_AFTER_FAILURES, type AttemptOutcome } from './retry-policy';
import type { AttemptResult } from './webhook-sender';
import { toAccountId, type AccountId } from '@app/vocabulary';

/** A delivery this worker holds for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  id: string;
  account_id: AccountId;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  body: Buffer;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secret_ciphertext: string;
}

/** What follows an attempt: closed, or pending again at `nextAttemptAt`. */
export interface AttemptPlan {
  outcome: AttemptOutcome;
  status: 'succeeded' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
}

export interface RecordedAttempt {
  /** False when the delivery was no longer this worker's (cancelled meanwhile). */
  applied: boolean;
  /** This attempt was the 20th consecutive failure: the endpoint is now disabled. */
  disabledEndpoint: boolean;
}

export { ATTEMPTS_KEPT_PER_ENDPOINT };

const INSERT_ATTEMPT = `INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number,
                                 attempted_at, outcome, status_code, error, duration_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;

/** The dispatcher's SQL: fan-out, claiming due deliveries, recording attempts. */
export class DeliveryStore {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One delivery per enabled endpoint of each event's account subscribed to its type, due now, for
   * a batch of events in two statements (endpoints, then one insert for all). Idempotent: a
   * redelivered message finds its rows and adds none. Returns how many it added; one NOTIFY per
   * batch wakes the delivery workers of every dispatcher replica.
   */
  async fanOut(messages: DomainEventMessage[]): Promise<number> {
    if (messages.length === 0) return 0;
    const accounts = [...new Set(messages.map((m) => m.account_id))];
    const endpoints = await poolQuery<{ id: string; account_id: string; events: string[] }>(
      this.dataSource,
      'SELECT id, account_id, events FROM webhook_endpoints WHERE account_id = ANY($1::uuid[]) AND enabled',
      [accounts],
    );
    if (endpoints.length === 0) return 0;
    const ids: string[] = [];
    const endpointIds: string[] = [];
    const events: number[] = [];
    messages.forEach((message, index) => {
      for (const endpoint of endpoints) {
        if (endpoint.account_id !== message.account_id || !endpoint.events.includes(message.envelope.type)) continue;
        ids.push(newId());
        endpointIds.push(endpoint.id);
        events.push(index + 1);
      }
    });
    if (ids.length === 0) return 0;
    const rows = await poolQuery<{ created: number }>(
      this.dataSource,
      `WITH created AS (
         INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, next_attempt_at)
         SELECT d.id, ($1::uuid[])[d.event], d.endpoint_id, ($2::uuid[])[d.event], ($3::text[])[d.event], 'event', ($4::bytea[])[d.event], 'pending', now()
           FROM unnest($5::uuid[], $6::uuid[], $7::int[]) AS d(id, endpoint_id, event)
         ON CONFLICT (event_id, endpoint_id) WHERE origin = 'event' DO NOTHING
         RETURNING id
       )
       SELECT count(*)::int AS created, CASE WHEN count(*) > 0 THEN pg_notify('${WEBHOOK_DELIVERIES_CHANNEL}', '') END AS notified FROM created`,
      [
        messages.map((m) => m.account_id),
        messages.map((m) => m.envelope.id),
        messages.map((m) => m.envelope.type),
        messages.map((m) => Buffer.from(JSON.stringify(m.envelope))),
        ids,
        endpointIds,
        events,
      ],
    );
    return rows[0]?.created ?? 0;
  }

  /**
   * The ids of those events that the api committed exactly as given (same id, account, type and
   * envelope in outbox_events): how an unsigned message proves it is not forged.
   */
  async committedEventIds(messages: DomainEventMessage[]): Promise<Set<string>> {
    if (messages.length === 0) return new Set();
    const rows = await poolQuery<{ id: string }>(
      this.dataSource,
      `SELECT o.id FROM outbox_events o
         JOIN unnest($1::uuid[], $2::uuid[], $3::text[], $4::jsonb[]) AS m(id, account_id, event_type, envelope)
           ON o.id = m.id AND o.account_id = m.account_id AND o.event_type = m.event_type AND o.envelope = m.envelope`,
      [
        messages.map((m) => m.envelope.id),
        messages.map((m) => m.account_id),
        messages.map((m) => m.envelope.type),
        messages.map((m) => JSON.stringify(m.envelope)),
      ],
    );
    return new Set(rows.map((row) => row.id));
  }

  /**
   * Claims due deliveries of enabled endpoints: at most `perEndpoint - busy` per endpoint (so one
   * endpoint's backlog cannot fill every slot), `perAccount - busyAccounts` per account (so one
   * tenant's many endpoints cannot either) and `limit` in all, oldest due first, skipping rows
   * another worker is claiming. The claim is a lease: `next_attempt_at` moves `leaseMs` ahead, so
   * a worker that dies mid-attempt leaves the delivery due again once the lease runs out.
   */
  async claimDue(
    limit: number,
    perEndpoint: number,
    busy: Map<string, number>,
    leaseMs: number,
    accounts: { perAccount: number; busyAccounts: Map<string, number> } = { perAccount: limit, busyAccounts: new Map() },
  ): Promise<ClaimedDelivery[]> {
    return poolQuery<ClaimedDelivery>(
      this.dataSource,
      `WITH RECURSIVE pending_endpoints AS (
         -- endpoints with pending deliveries, one index probe each (a "loose index scan"), so the
         -- claim costs what is pending, not how many endpoints exist
         (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT wd.endpoint_id FROM webhook_deliveries wd
                  WHERE wd.status = 'pending' AND wd.endpoint_id > p.endpoint_id ORDER BY wd.endpoint_id LIMIT 1)
           FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
       ),
       busy AS (SELECT * FROM unnest($1::uuid[], $2::int[]) AS b(endpoint_id, in_flight)),
       busy_accounts AS (SELECT * FROM unnest($6::uuid[], $7::int[]) AS b(account_id, in_flight)),
       per_endpoint AS (
         SELECT d.id, d.next_attempt_at, e.account_id
           FROM pending_endpoints p
           JOIN webhook_endpoints e ON e.id = p.endpoint_id AND e.enabled
           LEFT JOIN busy b ON b.endpoint_id = e.id
           CROSS JOIN LATERAL (
             SELECT wd.id, wd.next_attempt_at FROM webhook_deliveries wd
              WHERE wd.endpoint_id = e.id AND wd.status = 'pending' AND wd.next_attempt_at <= now()
              ORDER BY wd.next_attempt_at
              LIMIT greatest($3 - coalesce(b.in_flight, 0), 0)
           ) d
       ),
       ranked AS (
         SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY c.account_id ORDER BY c.next_attempt_at) AS nth,
                $8 - coalesce(ba.in_flight, 0) AS account_room
           FROM per_endpoint c LEFT JOIN busy_accounts ba ON ba.account_id = c.account_id
       ),
       candidates AS (
         SELECT id, next_attempt_at FROM ranked WHERE nth <= account_room
          ORDER BY next_attempt_at
          LIMIT $4
       ),
       claimed AS (
         SELECT wd.id FROM webhook_deliveries wd
          WHERE wd.id IN (SELECT id FROM candidates) AND wd.status = 'pending' AND wd.next_attempt_at <= now()
          FOR UPDATE SKIP LOCKED
       )
       UPDATE webhook_deliveries w
          SET next_attempt_at = now() + make_interval(secs => $5::double precision / 1000)
         FROM claimed c, webhook_endpoints e
        WHERE w.id = c.id AND e.id = w.endpoint_id
       RETURNING w.id, w.account_id, w.endpoint_id, w.event_id, w.event_type, w.body, w.attempts, e.url, e.secret_ciphertext`,
      [[...busy.keys()], [...busy.values()], perEndpoint, limit, leaseMs, [...accounts.busyAccounts.keys()], [...accounts.busyAccounts.values()], accounts.perAccount],
    );
  }

  /** Makes claimed deliveries that were never attempted due again (now, or after `delayMs`), ending their lease early. */
  async releaseClaims(deliveries: ClaimedDelivery[], delayMs = 0): Promise<void> {
    if (deliveries.length === 0) return;
    await poolQuery(
      this.dataSource,
      `UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $3::double precision / 1000)
         FROM unnest($1::uuid[], $2::int[]) AS r(id, attempts)
        WHERE d.id = r.id AND d.status = 'pending' AND d.attempts = r.attempts`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.attempts), delayMs],
    );
  }

  /**
   * Logs successful attempts, any number in one statement: each delivery closes as succeeded (if
   * it is still this worker's attempt), its endpoint's consecutive failure count resets, and the
   * attempt joins the log. Returns the ids of the deliveries it closed. Endpoint rows are locked in
   * id order, so concurrent batches and failures (endpoint first, then delivery) cannot deadlock.
   */
  async recordSuccesses(successes: Array<{ delivery: ClaimedDelivery; result: AttemptResult }>): Promise<string[]> {
    if (successes.length === 0) return [];
    const rows = await poolQuery<{ id: string }>(
      this.dataSource,
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::uuid[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[],
                              $8::timestamptz[], $9::int[], $10::text[], $11::int[])
           AS i(delivery_id, attempts, attempt_id, account_id, endpoint_id, event_id, event_type, attempted_at, status_code, error, duration_ms)
       ), endpoint AS (
         UPDATE webhook_endpoints SET consecutive_failures = 0
          WHERE id IN (SELECT id FROM webhook_endpoints
                        WHERE id IN (SELECT endpoint_id FROM input) AND consecutive_failures <> 0
                        ORDER BY id FOR UPDATE)
         RETURNING id
       ), delivery AS (
         UPDATE webhook_deliveries d
            SET attempts = d.attempts + 1, last_attempt_at = i.attempted_at, last_status_code = i.status_code, last_error = i.error,
                status = 'succeeded', next_attempt_at = NULL, completed_at = now(), updated_at = now()
           FROM input i
          WHERE d.id = i.delivery_id AND d.status = 'pending' AND d.attempts = i.attempts
         RETURNING d.id
       ), attempt AS (
         INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number,
                                       attempted_at, outcome, status_code, error, duration_ms)
         SELECT attempt_id, account_id, endpoint_id, delivery_id, event_id, event_type, attempts + 1,
                attempted_at, 'succeeded', status_code, error, duration_ms
           FROM input
       )
       SELECT id FROM delivery`,
      [
        successes.map((s) => s.delivery.id),
        successes.map((s) => s.delivery.attempts),
        successes.map((s) => s.result.deliveryId),
        successes.map((s) => s.delivery.account_id),
        successes.map((s) => s.delivery.endpoint_id),
        successes.map((s) => s.delivery.event_id),
        successes.map((s) => s.delivery.event_type),
        successes.map((s) => s.result.attemptedAt.toISOString()),
        successes.map((s) => s.result.statusCode),
        successes.map((s) => s.result.error),
        successes.map((s) => s.result.durationMs),
      ],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Trims the attempt log of these endpoints to the newest 100 each (spec §6.1: the panel shows
   * the last 100), in one statement. Readers never show more than 100 anyway; this only bounds
   * the table, so it runs once per batch of recorded attempts, not once per attempt.
   */
  async pruneAttempts(endpointIds: string[]): Promise<number> {
    if (endpointIds.length === 0) return 0;
    const rows = await poolQuery<{ pruned: number }>(
      this.dataSource,
      `WITH pruned AS (
         DELETE FROM webhook_attempts a
          USING unnest($1::uuid[]) AS e(endpoint_id)
          CROSS JOIN LATERAL (
            SELECT id FROM webhook_attempts WHERE endpoint_id = e.endpoint_id ORDER BY attempted_at DESC, id DESC OFFSET $2
          ) old
          WHERE a.id = old.id
         RETURNING 1
       )
       SELECT count(*)::int AS pruned FROM pruned`,
      [endpointIds, ATTEMPTS_KEPT_PER_ENDPOINT],
    );
    return rows[0]?.pruned ?? 0;
  }

  /**
   * Logs a failed attempt (retry or permanent) and applies its consequences atomically: the
   * endpoint's consecutive failure count (the 20th failure disables the endpoint and cancels its
   * pending deliveries) and the delivery's new state. Failures are rare, so one transaction each.
   * A failure may disable the endpoint, so it runs as a transaction that locks the endpoint row
   * before any delivery row, in the same order as `disable`, so the two cannot deadlock.
   */
  async recordFailure(delivery: ClaimedDelivery, result: AttemptResult, plan: AttemptPlan): Promise<RecordedAttempt> {
    return this.dataSource.transaction(async (manager) => {
      const { rows } = await execSql<{ consecutive_failures: number; enabled: boolean }>(
        manager,
        `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1
         RETURNING consecutive_failures, enabled`,
        [delivery.endpoint_id],
      );
      const reachedLimit = Boolean(rows[0]?.enabled) && (rows[0]?.consecutive_failures ?? 0) >= AUTO_DISABLE_AFTER_FAILURES;

      const updated = await execSql(
        manager,
        `UPDATE webhook_deliveries
            SET attempts = attempts + 1, last_attempt_at = $2, last_status_code = $3, last_error = $4,
                status = $5, next_attempt_at = $6, updated_at = now(),
                completed_at = CASE WHEN $5 = 'pending' THEN NULL ELSE now() END
          WHERE id = $1 AND status = 'pending' AND attempts = $7`,
        [delivery.id, result.attemptedAt, result.statusCode, result.error, plan.status, plan.nextAttemptAt, delivery.attempts],
      );

      const disabledEndpoint = reachedLimit ? await this.disableEndpoint(manager, delivery, result) : false;

      await execSql(manager, INSERT_ATTEMPT, this.attemptParams(delivery, result, plan.outcome));
      return { applied: updated.count > 0, disabledEndpoint };
    });
  }

  private attemptParams(delivery: ClaimedDelivery, result: AttemptResult, outcome: AttemptOutcome): unknown[] {
    return [
      result.deliveryId,
      delivery.account_id,
      delivery.endpoint_id,
      delivery.id,
      delivery.event_id,
      delivery.event_type,
      delivery.attempts + 1,
      result.attemptedAt,
      outcome,
      result.statusCode,
      result.error,
      result.durationMs,
    ];
  }

  async backlog(): Promise<{ due: number; oldestDueAgeSeconds: number; disabledEndpoints: number }> {
    const [due, disabled] = await Promise.all([
      execSql<{ due: string; oldest: Date | null }>(
        this.dataSource,
        `SELECT count(*) AS due, min(next_attempt_at) AS oldest FROM webhook_deliveries
          WHERE status = 'pending' AND next_attempt_at <= now()`,
      ),
      execSql<{ disabled: string }>(this.dataSource, 'SELECT count(*) AS disabled FROM webhook_endpoints WHERE NOT enabled'),
    ]);
    const oldest = due.rows[0]?.oldest;
    return {
      due: Number(due.rows[0]?.due ?? 0),
      oldestDueAgeSeconds: oldest ? Math.max(0, (Date.now() - oldest.getTime()) / 1000) : 0,
      disabledEndpoints: Number(disabled.rows[0]?.disabled ?? 0),
    };
  }

  private async disableEndpoint(manager: SqlExecutor, delivery: ClaimedDelivery, result: AttemptResult): Promise<boolean> {
    const last = result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'unknown error');
    const reason = `disabled automatically after ${AUTO_DISABLE_AFTER_FAILURES} consecutive failed attempts (last: ${last})`;
    const disabled = await execSql(
      manager,
      `UPDATE webhook_endpoints SET enabled = false, disabled_at = now(), disabled_reason = $2, updated_at = now()
        WHERE id = $1 AND enabled`,
      [delivery.endpoint_id, reason],
    );
    if (disabled.count === 0) return false;
    await cancelPendingDeliveries(manager, toAccountId(delivery.account_id), delivery.endpoint_id);
    return true;
  }
}
