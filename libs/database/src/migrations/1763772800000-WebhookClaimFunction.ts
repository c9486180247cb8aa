import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatcher's claim as one call (issue 26: commit → receipt latency). A claim was a
 * transaction of seven round trips (BEGIN, SET LOCAL synchronous_commit, the fleet's advisory
 * lock, the renewal, the claim, the grants, COMMIT): 6–14 ms of wall time on a loaded 2-core
 * machine for 1–3 ms of work, with the claim statement planned afresh each time. The function
 * does the same steps in one statement sent in autocommit, and PL/pgSQL keeps each step's plan
 * for the connection.
 *
 * Why a function and not one statement: the claim must see the grants the previous claimer wrote
 * just before it released the lock. A statement's snapshot is taken when it starts, before it
 * could take the lock; a VOLATILE function takes a fresh snapshot for each of its statements, so
 * every step after the lock sees what the previous claimer committed.
 *
 * The steps, as the transaction ran them (webhook-deliveries.repository.ts, `claimDueDeliveries`):
 * 1. The commit does not wait for its WAL flush (what a crash can lose of a claim is a lease and
 *    grants: the delivery is sent again, at least once, and the next claims rebuild the grants).
 * 2. Claims of every dispatcher are serialised (transaction-scoped advisory lock).
 * 3. `p_worker` is renewed as a live dispatcher for `p_lease_ms`; dispatchers whose lease ran out
 *    are forgotten, and their grants with them (ON DELETE CASCADE).
 * 4. Due deliveries of enabled endpoints are leased: at most `p_hold_per_endpoint` held per
 *    endpoint and `p_hold_per_account` per account (what this process holds, `p_endpoints` /
 *    `p_accounts` with their counts, plus twice what the other live processes are granted), and
 *    `p_limit` in all, max-min fair among the accounts with due work.
 * 5. This process's grants become, per key it holds, min(bound − the others' grants, held)
 *    (`p_per_endpoint`, `p_per_account`); keys it holds nothing of, or that leave it no slot, are
 *    dropped. The whole set is written, so a process forgotten in step 3 starts again from nothing.
 *
 * Rows: the leased deliveries (grant_* null), then this process's grants (delivery columns null).
 */
export const CLAIM_FUNCTION = `
  CREATE FUNCTION webhook_claim_deliveries(
    p_worker uuid, p_lease_ms double precision, p_limit int,
    p_hold_per_endpoint int, p_hold_per_account int, p_per_endpoint int, p_per_account int,
    p_endpoints uuid[], p_endpoint_counts int[], p_accounts uuid[], p_account_counts int[]
  ) RETURNS TABLE (
    id uuid, account_id uuid, endpoint_id uuid, event_id uuid, event_type text, body bytea, attempts int,
    url text, secret_ciphertext text, signature_format text, previous_secret_ciphertext text,
    grant_scope text, grant_key uuid, grant_slots int
  )
  LANGUAGE plpgsql VOLATILE AS $$
  #variable_conflict use_column
  BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    PERFORM pg_advisory_xact_lock(hashtext('webhook-delivery-claims'));
    DELETE FROM webhook_dispatchers WHERE until <= now() AND worker_id <> p_worker;
    INSERT INTO webhook_dispatchers (worker_id, until) VALUES (p_worker, now() + make_interval(secs => p_lease_ms / 1000))
    ON CONFLICT (worker_id) DO UPDATE SET until = excluded.until;
    RETURN QUERY
    WITH RECURSIVE pending_endpoints AS (
      -- endpoints with pending deliveries, one index probe each (a "loose index scan"), so the
      -- claim costs what is pending, not how many endpoints exist
      (SELECT wd.endpoint_id FROM webhook_deliveries wd WHERE wd.status = 'pending' ORDER BY wd.endpoint_id LIMIT 1)
      UNION ALL
      SELECT (SELECT wd.endpoint_id FROM webhook_deliveries wd
               WHERE wd.status = 'pending' AND wd.endpoint_id > p.endpoint_id ORDER BY wd.endpoint_id LIMIT 1)
        FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
    ),
    others AS (
      SELECT g.scope, g.key, sum(g.slots)::int AS slots FROM webhook_slot_grants g WHERE g.worker_id <> p_worker GROUP BY g.scope, g.key
    ),
    in_hand AS (
      SELECT 'endpoint'::text AS scope, h.key, h.n FROM unnest(p_endpoints, p_endpoint_counts) AS h(key, n)
      UNION ALL
      SELECT 'account'::text, h.key, h.n FROM unnest(p_accounts, p_account_counts) AS h(key, n)
    ),
    counted AS (
      -- what counts against a key's hold: what this process holds, and twice the others' grants
      SELECT c.scope, c.key, sum(c.n)::int AS n
        FROM (SELECT i.scope, i.key, i.n FROM in_hand i UNION ALL SELECT o.scope, o.key, 2 * o.slots FROM others o) c
       GROUP BY c.scope, c.key
    ),
    per_endpoint AS (
      SELECT d.id, d.next_attempt_at, e.account_id
        FROM pending_endpoints p
        JOIN webhook_endpoints e ON e.id = p.endpoint_id AND e.enabled
        LEFT JOIN counted b ON b.scope = 'endpoint' AND b.key = e.id
        CROSS JOIN LATERAL (
          SELECT wd.id, wd.next_attempt_at FROM webhook_deliveries wd
           WHERE wd.endpoint_id = e.id AND wd.status = 'pending' AND wd.next_attempt_at <= now()
             AND (wd.lease_until IS NULL OR wd.lease_until <= now())
           ORDER BY wd.next_attempt_at
           LIMIT greatest(p_hold_per_endpoint - coalesce(b.n, 0), 0)
        ) d
    ),
    ranked AS (
      SELECT c.id, c.next_attempt_at, row_number() OVER (PARTITION BY c.account_id ORDER BY c.next_attempt_at) AS nth,
             coalesce(ba.n, 0) AS account_claimed, p_hold_per_account - coalesce(ba.n, 0) AS account_room
        FROM per_endpoint c LEFT JOIN counted ba ON ba.scope = 'account' AND ba.key = c.account_id
    ),
    candidates AS (
      -- max-min fair among the accounts with due work: each account's next delivery ranks by what
      -- the account would then hold (already claimed + its rank), so the limit goes round the
      -- accounts, least served first, instead of to whoever has the oldest backlog
      SELECT r.id, r.next_attempt_at FROM ranked r WHERE r.nth <= r.account_room
       ORDER BY r.account_claimed + r.nth, r.next_attempt_at
       LIMIT p_limit
    ),
    claimed AS (
      SELECT wd.id FROM webhook_deliveries wd
       WHERE wd.id IN (SELECT c.id FROM candidates c) AND wd.status = 'pending' AND wd.next_attempt_at <= now()
         AND (wd.lease_until IS NULL OR wd.lease_until <= now())
       FOR UPDATE SKIP LOCKED
    ),
    leased AS (
      -- the lease is a column outside every index: a HOT update
      UPDATE webhook_deliveries w
         SET lease_until = now() + make_interval(secs => p_lease_ms / 1000)
        FROM claimed c, webhook_endpoints e
       WHERE w.id = c.id AND e.id = w.endpoint_id
      RETURNING w.id, w.account_id, w.endpoint_id, w.event_id, w.event_type, w.body, w.attempts, e.url, e.secret_ciphertext,
                e.signature_format, CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_ciphertext END AS previous_secret_ciphertext
    ),
    held AS (
      SELECT h.scope, h.key, sum(h.n)::int AS n
        FROM (SELECT i.scope, i.key, i.n FROM in_hand i
              UNION ALL SELECT 'endpoint'::text, l.endpoint_id, 1 FROM leased l
              UNION ALL SELECT 'account'::text, l.account_id, 1 FROM leased l) h
       GROUP BY h.scope, h.key
    ),
    granted AS (
      SELECT h.scope, h.key, least(CASE h.scope WHEN 'endpoint' THEN p_per_endpoint ELSE p_per_account END - coalesce(o.slots, 0), h.n) AS slots
        FROM held h LEFT JOIN others o ON o.scope = h.scope AND o.key = h.key
    ),
    kept AS (SELECT g.scope, g.key, g.slots FROM granted g WHERE g.slots > 0),
    dropped AS (
      DELETE FROM webhook_slot_grants g
       WHERE g.worker_id = p_worker AND NOT EXISTS (SELECT 1 FROM kept k WHERE k.scope = g.scope AND k.key = g.key)
    ),
    written AS (
      INSERT INTO webhook_slot_grants AS g (worker_id, scope, key, slots)
      SELECT p_worker, k.scope, k.key, k.slots FROM kept k
      ON CONFLICT (worker_id, scope, key) DO UPDATE SET slots = excluded.slots WHERE g.slots <> excluded.slots
    )
    SELECT l.id, l.account_id, l.endpoint_id, l.event_id, l.event_type, l.body, l.attempts, l.url, l.secret_ciphertext,
           l.signature_format, l.previous_secret_ciphertext, NULL::text, NULL::uuid, NULL::int
      FROM leased l
    UNION ALL
    SELECT NULL::uuid, NULL::uuid, NULL::uuid, NULL::uuid, NULL::text, NULL::bytea, NULL::int, NULL::text, NULL::text,
           NULL::text, NULL::text, k.scope, k.key, k.slots
      FROM kept k;
  END $$`;

export class WebhookClaimFunction1763772800000 implements MigrationInterface {
  name = 'WebhookClaimFunction1763772800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(CLAIM_FUNCTION);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP FUNCTION webhook_claim_deliveries(uuid, double precision, int, int, int, int, int, uuid[], int[], uuid[], int[])');
  }
}
