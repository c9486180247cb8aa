import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CLAIM_BY_KEY_FUNCTION } from './1763773000000-WebhookClaimByKey';

/**
 * A claim visits a window of the endpoints with pending deliveries, walking a ring from a cursor
 * (issue 26: a claim's cost must not grow with the endpoints that have work). The claim walked every
 * endpoint with a pending delivery (a loose scan of the due index), took up to its hold of each and
 * kept the `p_limit` best: a refill of 8 rows read 15,773 buffer pages with 1,000 busy endpoints
 * against 507 with 10 (tenants-claim).
 *
 * The ring orders endpoints by `uuid_hash(endpoint_id)`, then id. Not by id: endpoint ids are
 * time-ordered, so the endpoints of one account sit side by side, and a window in id order was a
 * handful of accounts, whose origins then got bursts of requests over new TLS connections (the
 * reverted cursor, BENCHMARKS.md). Hashed, a window of W endpoints spreads over about as many
 * accounts as the whole ring would give it. The due index is rebuilt on that order
 * `(uuid_hash(endpoint_id), endpoint_id, next_attempt_at) WHERE status = 'pending'`, under its old
 * name; a statement about one endpoint's pending deliveries says `uuid_hash(endpoint_id) =
 * uuid_hash($x)` beside `endpoint_id = $x` to use it.
 *
 * New parameters: `p_after_ring` and `p_after_endpoint`, the ring position the walk starts after
 * (NULLs: from the start), and `p_window`, the most endpoints with pending deliveries it visits.
 * Within the window the claim is unchanged (oldest due first per endpoint, max-min fair among the
 * window's accounts, the fleet's grants). One more row, scope `resume`: where the next claim starts
 * (`grant_key` the endpoint, `grant_slots` its ring hash), or NULLs when the walk reached the end of
 * the ring. The dispatcher keeps the cursor (claim-cursor.ts).
 */
const NEW_PARAMETERS = [
  `p_endpoints uuid[], p_endpoint_counts int[], p_accounts uuid[], p_account_counts int[]
  ) RETURNS TABLE`,
  `p_endpoints uuid[], p_endpoint_counts int[], p_accounts uuid[], p_account_counts int[],
    p_after_ring int, p_after_endpoint uuid, p_window int
  ) RETURNS TABLE`,
] as const;

const LOOSE_SCAN_OF_EVERY_ENDPOINT = `
    WITH RECURSIVE pending_endpoints AS (
      -- endpoints with pending deliveries, one index probe each (a "loose index scan"), so the
      -- claim costs what is pending, not how many endpoints exist
      (SELECT wd.endpoint_id FROM webhook_deliveries wd WHERE wd.status = 'pending' ORDER BY wd.endpoint_id LIMIT 1)
      UNION ALL
      SELECT (SELECT wd.endpoint_id FROM webhook_deliveries wd
               WHERE wd.status = 'pending' AND wd.endpoint_id > p.endpoint_id ORDER BY wd.endpoint_id LIMIT 1)
        FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
    ),`;
const WINDOW_OF_THE_RING = `
    WITH RECURSIVE ring AS (
      -- the next p_window endpoints with pending deliveries after the cursor, in ring order, one
      -- index probe each (a "loose index scan"), so the claim costs its window, not what is pending
      (SELECT uuid_hash(wd.endpoint_id) AS ring, wd.endpoint_id, 1 AS nth FROM webhook_deliveries wd
        WHERE wd.status = 'pending' AND p_window > 0
          AND (uuid_hash(wd.endpoint_id), wd.endpoint_id) > (coalesce(p_after_ring, -2147483648), coalesce(p_after_endpoint, '00000000-0000-0000-0000-000000000000'::uuid))
        ORDER BY uuid_hash(wd.endpoint_id), wd.endpoint_id LIMIT 1)
      UNION ALL
      SELECT n.ring, n.endpoint_id, r.nth + 1
        FROM ring r CROSS JOIN LATERAL (
          SELECT uuid_hash(wd.endpoint_id) AS ring, wd.endpoint_id FROM webhook_deliveries wd
           WHERE wd.status = 'pending' AND (uuid_hash(wd.endpoint_id), wd.endpoint_id) > (r.ring, r.endpoint_id)
           ORDER BY uuid_hash(wd.endpoint_id), wd.endpoint_id LIMIT 1
        ) n
       WHERE r.nth < p_window
    ),
    pending_endpoints AS (SELECT r.endpoint_id FROM ring r),
    resume AS (
      -- the window's last endpoint if the window is full, else nothing: the walk reached the end
      SELECT r.ring, r.endpoint_id FROM ring r WHERE r.nth = p_window
    ),`;

const ENDPOINT_SCAN = `WHERE wd.endpoint_id = e.id AND wd.status = 'pending' AND wd.next_attempt_at <= now()`;
const RING_ENDPOINT_SCAN = `WHERE uuid_hash(wd.endpoint_id) = uuid_hash(e.id) AND wd.endpoint_id = e.id AND wd.status = 'pending' AND wd.next_attempt_at <= now()`;

const LAST_ROWS = `(SELECT count(*)::int FROM webhook_dispatchers d WHERE d.worker_id <> p_worker AND d.until > now());`;
const LAST_ROWS_AND_RESUME = `(SELECT count(*)::int FROM webhook_dispatchers d WHERE d.worker_id <> p_worker AND d.until > now())
    UNION ALL
    SELECT NULL::uuid, NULL::uuid, NULL::uuid, NULL::uuid, NULL::text, NULL::bytea, NULL::int, NULL::text, NULL::text,
           NULL::text, NULL::text, 'resume'::text, (SELECT s.endpoint_id FROM resume s), (SELECT s.ring FROM resume s);`;

function ringClaimFunction(): string {
  const replacements: Array<readonly [string, string]> = [
    NEW_PARAMETERS,
    [LOOSE_SCAN_OF_EVERY_ENDPOINT, WINDOW_OF_THE_RING],
    [ENDPOINT_SCAN, RING_ENDPOINT_SCAN],
    [LAST_ROWS, LAST_ROWS_AND_RESUME],
  ];
  let text = CLAIM_BY_KEY_FUNCTION;
  for (const [from, to] of replacements) {
    if (text.split(from).length !== 2) throw new Error(`WebhookClaimRing: the claim function does not have, exactly once, the text this migration replaces:${from}`);
    text = text.replace(from, to);
  }
  return text;
}

export const CLAIM_RING_FUNCTION = ringClaimFunction();

const BY_KEY_SIGNATURE = 'uuid, double precision, int, int, int, int, int, uuid[], int[], uuid[], int[]';
const RING_SIGNATURE = `${BY_KEY_SIGNATURE}, int, uuid, int`;

export class WebhookClaimRing1763773100000 implements MigrationInterface {
  name = 'WebhookClaimRing1763773100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX webhook_deliveries_due_idx');
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (uuid_hash(endpoint_id), endpoint_id, next_attempt_at) WHERE status = 'pending'`);
    await q.query(`DROP FUNCTION webhook_claim_deliveries(${BY_KEY_SIGNATURE})`);
    await q.query(CLAIM_RING_FUNCTION);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION webhook_claim_deliveries(${RING_SIGNATURE})`);
    await q.query(CLAIM_BY_KEY_FUNCTION);
    await q.query('DROP INDEX webhook_deliveries_due_idx');
    await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at) WHERE status = 'pending'`);
  }
}
