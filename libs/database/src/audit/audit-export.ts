import { csvCell, type AccountId } from '@app/vocabulary';
import type { Db } from '../sql';
import { type AuditEventFilters, type AuditEventRow, listAuditEvents } from './audit.repository';

export const AUDIT_CSV_HEADER = [
  'occurred_at', 'seq', 'actor_type', 'actor_id', 'client_address', 'request_id', 'reason', 'action', 'operation',
  'resource_type', 'resource_id', 'changes', 'prev_hash', 'hash',
];

function csvLine(row: AuditEventRow): string {
  return `${[
    row.occurred_at.toISOString(), String(row.seq), row.actor_type, row.actor_id, row.client_address, row.request_id, row.reason, row.action,
    row.operation, row.resource_type, row.resource_id, JSON.stringify(row.changes), row.prev_hash, row.hash,
  ]
    .map(csvCell)
    .join(',')}\r\n`;
}

/** Reads an account's records in a time range page by page (newest first, like the list), handing each page to `each` until it says stop (false). */
async function forEachAuditPage(db: Db, accountId: AccountId, filters: AuditEventFilters, each: (rows: AuditEventRow[]) => boolean | void, pageSize: number): Promise<number> {
  let after: { at: string; id: string } | null = null;
  let read = 0;
  for (;;) {
    const rows = await listAuditEvents(db, accountId, filters, { limit: pageSize, after });
    const more = each(rows) !== false;
    read += rows.length;
    if (rows.length < pageSize || !more) return read;
    const last = rows[rows.length - 1];
    after = { at: last.position_at, id: last.id };
  }
}

/**
 * Writes an account's records in a time range (newest first, like the list) as CSV with CRLF line
 * ends, page by page; each line keeps its seq and hashes, so the copy can be checked against the
 * chain. Returns the number of records written.
 */
export async function exportAuditCsv(db: Db, accountId: AccountId, filters: AuditEventFilters, write: (chunk: string) => void, pageSize = 1000): Promise<number> {
  write(`${AUDIT_CSV_HEADER.join(',')}\r\n`);
  return forEachAuditPage(db, accountId, filters, (rows) => {
    for (const row of rows) write(csvLine(row));
  }, pageSize);
}

/** Most records one PDF export holds (a document for people: a longer range is exported in parts). */
export const AUDIT_PDF_MAX_RECORDS = 20_000;

/** An account's records in a time range, oldest first, for a document; null when there are more than `max`. */
export async function readAuditRecords(db: Db, accountId: AccountId, filters: AuditEventFilters, max = AUDIT_PDF_MAX_RECORDS, pageSize = 1000): Promise<AuditEventRow[] | null> {
  const rows: AuditEventRow[] = [];
  await forEachAuditPage(db, accountId, filters, (page) => {
    rows.push(...page);
    return rows.length <= max;
  }, pageSize);
  return rows.length > max ? null : rows.reverse();
}
