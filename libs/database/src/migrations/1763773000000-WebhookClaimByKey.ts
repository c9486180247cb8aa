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
 */
const SCANNING_RECHECK = `
      SELECT wd.id FROM webhook_deliveries wd
       WHERE wd.id IN (SELECT c.id FROM candidates c) AND wd.status = 'pending' AND wd.next_attempt_at <= now()`;
const KEYED_RECHECK = `
      SELECT wd.id FROM webhook_deliveries wd
       WHERE wd.id = ANY (ARRAY(SELECT c.id FROM candidates c)) AND wd.next_attempt_at <= now()`;

function claimFunction(recheck: string): string {
  if (!CLAIM_FUNCTION.includes(SCANNING_RECHECK)) throw new Error('WebhookClaimByKey: the claim function no longer has the re-check this migration replaces');
  return CLAIM_FUNCTION.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION').replace(SCANNING_RECHECK, recheck);
}

export class WebhookClaimByKey1763773000000 implements MigrationInterface {
  name = 'WebhookClaimByKey1763773000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(claimFunction(KEYED_RECHECK));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(claimFunction(SCANNING_RECHECK));
  }
}
