import type { AccountId, KeysetPage, TimeAndId } from '@app/vocabulary';
import { sql, type Db } from '../sql';
import { AUDIT_QUERIES as Q } from './audit.queries';

/** The chain of records that are not any customer account's (devices, their maintenance). */
export const PLATFORM_AUDIT_ACCOUNT = '00000000-0000-0000-0000-000000000000';

/** One field's change: its value before and after, or only that it changed (secrets, tokens, hashes). */
export type AuditFieldChange = { old: unknown; new: unknown } | { changed: true };

export interface AuditEventRow {
  id: string;
  account_id: string;
  seq: string;
  occurred_at: Date;
  /** occurred_at as PostgreSQL's exact text (microseconds kept): the keyset position. */
  position_at: string;
  actor_type: 'credential' | 'panel_user' | 'cli' | 'system';
  actor_id: string | null;
  client_address: string | null;
  request_id: string | null;
  reason: string | null;
  action: string;
  operation: 'create' | 'update' | 'delete';
  resource_type: string;
  resource_id: string;
  changes: Record<string, AuditFieldChange>;
  prev_hash: string;
  hash: string;
}

export interface AuditEventFilters {
  resourceType?: string;
  resourceId?: string;
  actor?: string;
  action?: string;
  from?: Date;
  until?: Date;
}

/** Newest first: up to `page.limit` records after `page.after`. */
export function listAuditEvents(db: Db, accountId: AccountId, filters: AuditEventFilters, page: KeysetPage<TimeAndId>): Promise<AuditEventRow[]> {
  return sql.rows<AuditEventRow>(db, Q.list, [
    accountId,
    page.limit,
    filters.resourceType ?? null,
    filters.resourceId ?? null,
    filters.actor ?? null,
    filters.action ?? null,
    filters.from ?? null,
    filters.until ?? null,
    page.after?.at ?? null,
    page.after?.id ?? null,
  ]);
}

export function findAuditEvent(db: Db, accountId: AccountId, id: string): Promise<AuditEventRow | null> {
  return sql.first<AuditEventRow>(db, Q.find, [accountId, id]);
}

/** The account's newest record position and hash (null: no record yet). */
export async function auditChainHead(db: Db, accountId: string): Promise<{ seq: number; hash: string } | null> {
  const row = await sql.first<{ seq: string; hash: string }>(db, Q.chainHead, [accountId]);
  return row ? { seq: Number(row.seq), hash: row.hash } : null;
}

/** Creates the month's partition of the trail when it is missing (housekeeping runs it ahead of time). */
export async function ensureAuditPartition(db: Db, at: Date): Promise<string> {
  const row = await sql.first<{ partition: string }>(db, Q.ensurePartition, [at]);
  return row?.partition ?? '';
}

/** Creates the partitions of this month and the next `months - 1` ahead, so records never land in the default partition. */
export async function ensureAuditPartitionsAhead(db: Db, now: Date, months = 3): Promise<string[]> {
  const made: string[] = [];
  for (let month = 0; month < months; month++) {
    made.push(await ensureAuditPartition(db, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + month, 1))));
  }
  return made;
}

/**
 * Drops the trail's monthly partitions that end at or before `keepFrom` (whole months only,
 * oldest first), keeping each account's last dropped record as the anchor its chain is verified
 * from. Returns the partitions dropped. PostgreSQL refuses a `keepFrom` within the last 31 days.
 */
export async function dropExpiredAuditPartitions(db: Db, keepFrom: Date): Promise<string[]> {
  return (await sql.rows<{ partition: string }>(db, Q.dropExpiredPartitions, [keepFrom])).map((row) => row.partition);
}

/** The first place an account's chain does not hold, or null when every record and link holds. */
export interface BrokenLink {
  /** Position in the chain where the break shows (the record expected there). */
  seq: number;
  /** The record found there, when there is one. */
  id: string | null;
  problem: 'altered' | 'missing' | 'out_of_order' | 'truncated';
  detail: string;
}

/** The last record of a dropped partition, where the kept part of a chain starts. */
export interface ChainAnchor {
  seq: number;
  hash: string;
  partition: string;
  droppedAt: Date;
}

export interface ChainVerification {
  accountId: string;
  records: number;
  /** Null when the chain is whole (verified from record 1). */
  anchor: ChainAnchor | null;
  head: { seq: number; hash: string } | null;
  broken: BrokenLink | null;
}

/**
 * Walks an account's chain from its first record: each must be the next position (seq), name the
 * previous record's hash as prev_hash, and still give its own hash from its content; the last one
 * must be the chain head. Reports the first record where that fails. When old partitions were
 * dropped (retention), the walk starts after the newest anchor: the first kept record must be the
 * anchor's seq + 1 and name the anchor's hash.
 */
export async function verifyAuditChain(db: Db, accountId: string, batchSize = 5000): Promise<ChainVerification> {
  const head = await auditChainHead(db, accountId);
  const anchorRow = await sql.first<{ seq: string; hash: string; partition: string; dropped_at: Date }>(db, Q.chainAnchor, [accountId]);
  const anchor = anchorRow ? { seq: Number(anchorRow.seq), hash: anchorRow.hash, partition: anchorRow.partition, droppedAt: anchorRow.dropped_at } : null;
  let expectedSeq = (anchor?.seq ?? 0) + 1;
  let previousHash = anchor?.hash ?? '';
  let records = 0;
  const result = (broken: BrokenLink | null): ChainVerification => ({ accountId, records, anchor, head, broken });
  for (;;) {
    const slice = await sql.rows<{ id: string; seq: string; prev_hash: string; hash: string; digest: string }>(db, Q.chainSlice, [
      accountId,
      expectedSeq - 1,
      batchSize,
    ]);
    for (const row of slice) {
      const seq = Number(row.seq);
      if (seq !== expectedSeq) {
        return result(
          seq > expectedSeq
            ? { seq: expectedSeq, id: null, problem: 'missing', detail: `record ${expectedSeq} is missing (the next one is ${seq}: records were removed)` }
            : { seq, id: row.id, problem: 'out_of_order', detail: `a second record claims position ${seq}` },
        );
      }
      if (row.prev_hash !== previousHash) {
        return result({ seq, id: row.id, problem: 'out_of_order', detail: `record ${seq} does not follow record ${seq - 1} (prev_hash differs: records were removed or reordered)` });
      }
      if (row.digest !== row.hash) {
        return result({ seq, id: row.id, problem: 'altered', detail: `record ${seq} no longer matches its hash (its content was changed)` });
      }
      previousHash = row.hash;
      expectedSeq += 1;
      records += 1;
    }
    if (slice.length < batchSize) break;
  }
  const last = expectedSeq - 1;
  if ((head?.seq ?? 0) !== last || (head?.hash ?? '') !== previousHash) {
    return result({
      seq: last + 1,
      id: null,
      problem: 'truncated',
      detail: `the chain ends at record ${last} but its head is record ${head?.seq ?? 0} (records were removed from its end, or the head was changed)`,
    });
  }
  return result(null);
}
