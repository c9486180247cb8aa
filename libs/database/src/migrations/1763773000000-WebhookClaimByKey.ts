import type { MigrationInterface, QueryRunner } from 'typeorm';
import { CLAIM_FUNCTION } from './1763772800000-WebhookClaimFunction';

/**
 * The claim re-checks its candidates by primary key (issue 26: flat claim cost). The re-check under
 * `FOR UPDATE SKIP LOCKED` said `status = 'pending'`, which matches the partial due index's
 * predicate; planned with statistics from a quiet moment (few pending rows, as PL/pgSQL keeps the
 * plan for the connection's life), it scanned every due delivery of every endpoint and semi-joined
 * the few candidates against them: 1,806 rows and 755 buffers for 18 claimed in the bench, growing
 * with the backlog. It now looks the candidates up by id (`= ANY` of their array) and says
 * "pending" as `next_attempt_at IS NOT NULL` (equivalent by webhook_deliveries_schedule_check), which
 * no partial index's predicate matches, so the only plan is the key lookup.
 *
 * It also returns one more row, scope `fleet`: how many other dispatchers are live. A process alone
 * need not claim again after each response just to keep its grants current for the others, only
 * when its last claim may have left due work behind (DeliveryWorker), which at low load spared two
 * of every three claims.
 */
const SCANNING_RECHECK = `
      SELECT wd.id FROM webhook_deliveries wd
       WHERE wd.id IN (SELECT c.id FROM candidates c) AND wd.status = 'pending' AND wd.next_attempt_at <= now()`;
const KEYED_RECHECK = `
      SELECT wd.id FROM webhook_deliveries wd
       WHERE wd.id = ANY (ARRAY(SELECT c.id FROM candidates c)) AND wd.next_attempt_at <= now()`;

const GRANT_ROWS = `
           NULL::text, NULL::text, k.scope, k.key, k.slots
      FROM kept k;`;
const GRANT_AND_FLEET_ROWS = `
           NULL::text, NULL::text, k.scope, k.key, k.slots
      FROM kept k
    UNION ALL
    SELECT NULL::uuid, NULL::uuid, NULL::uuid, NULL::uuid, NULL::text, NULL::bytea, NULL::int, NULL::text, NULL::text,
           NULL::text, NULL::text, 'fleet'::text, NULL::uuid, (SELECT count(*)::int FROM webhook_dispatchers d WHERE d.worker_id <> p_worker AND d.until > now());`;

function claimFunction(recheck: string, tail: string): string {
  for (const part of [SCANNING_RECHECK, GRANT_ROWS]) {
    if (!CLAIM_FUNCTION.includes(part)) throw new Error(`WebhookClaimByKey: the claim function no longer has the text this migration replaces:${part}`);
  }
  return CLAIM_FUNCTION.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION').replace(SCANNING_RECHECK, recheck).replace(GRANT_ROWS, tail);
}

/** The claim function as this migration leaves it (the next migration builds on its text). */
export const CLAIM_BY_KEY_FUNCTION = claimFunction(KEYED_RECHECK, GRANT_AND_FLEET_ROWS);

export class WebhookClaimByKey1763773000000 implements MigrationInterface {
  name = 'WebhookClaimByKey1763773000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(CLAIM_BY_KEY_FUNCTION);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(claimFunction(SCANNING_RECHECK, GRANT_ROWS));
  }
}
