import { defineQueries } from '../sql/query';

const EVENT_COLUMNS = `id, account_id, seq, occurred_at, occurred_at::text AS position_at, actor_type, actor_id, client_address,
       request_id, reason, action, operation, resource_type, resource_id, changes, prev_hash, hash`;

/**
 * The audit trail. Its rows are written only by the audit trigger (migration AuditTrail), never
 * by a statement of the service: these read it, and walk a chain to verify it.
 */
export const AUDIT_QUERIES = defineQueries({
  owner: 'audit',
  tables: ['audit_events', 'audit_chain_heads', 'audit_chain_anchors'],
  tenant: {
    /** Newest first; every filter optional (null = any); $9/$10 the keyset (the last row's time text and id). */
    list: `
      SELECT ${EVENT_COLUMNS}
        FROM audit_events
       WHERE account_id = $1
         AND ($3::text IS NULL OR resource_type = $3)
         AND ($4::text IS NULL OR resource_id = $4)
         AND ($5::text IS NULL OR actor_id = $5)
         AND ($6::text IS NULL OR action = $6)
         AND ($7::timestamptz IS NULL OR occurred_at >= $7)
         AND ($8::timestamptz IS NULL OR occurred_at < $8)
         AND ($9::timestamptz IS NULL OR (occurred_at, id) < ($9, $10::uuid))
       ORDER BY occurred_at DESC, id DESC
       LIMIT $2`,
    find: `SELECT ${EVENT_COLUMNS} FROM audit_events WHERE account_id = $1 AND id = $2`,
  },
  platform: {
    /** A slice of an account's chain in chain order, each with the digest its content gives now. */
    chainSlice: `
      SELECT e.id, e.seq, e.occurred_at, e.prev_hash, e.hash, audit_event_digest(e.prev_hash, e) AS digest
        FROM audit_events e
       WHERE e.account_id = $1 AND e.seq > $2
       ORDER BY e.seq, e.id
       LIMIT $3`,
    chainHead: `SELECT seq, hash FROM audit_chain_heads WHERE account_id = $1`,
    /** Where the kept part of a chain starts: the last record of the newest dropped partition (none: record 1). */
    chainAnchor: `SELECT seq, hash, partition, dropped_at FROM audit_chain_anchors WHERE account_id = $1 ORDER BY seq DESC LIMIT 1`,
    ensurePartition: `SELECT audit_ensure_partition($1::timestamptz) AS partition`,
    /** Drops the monthly partitions that end at or before $1, oldest first, anchoring each chain (migration AuditRetention). */
    dropExpiredPartitions: `SELECT audit_drop_expired_partitions($1::timestamptz) AS partition`,
  },
});
