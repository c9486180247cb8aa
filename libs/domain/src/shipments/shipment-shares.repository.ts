import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { SHIPMENT_QUERIES as Q } from './shipments.queries';

// Public share links of a shipment (shipment_shares).

export interface ShareRow {
  token_hash: Buffer;
  /** Null for a share created before links were derivable: its URL cannot be shown. */
  link_nonce: Buffer | null;
  expires_at: Date;
  max_views: number;
  view_count: number;
  created_at: Date;
  revoked_at: Date | null;
}

export function findShare(db: Db, accountId: AccountId, shipmentId: number): Promise<ShareRow | null> {
  return sql.first<ShareRow>(db, Q.share, [accountId, shipmentId]);
}

export interface ShareInput {
  tokenHash: Buffer;
  nonce: Buffer;
  expiresAt: Date;
  maxViews: number;
  now: Date;
}

/** Creates the share, or refreshes it: a new token (the old link dies at once) and the view count back to 0. */
export async function putShare(db: Db, accountId: AccountId, shipmentId: number, share: ShareInput): Promise<ShareRow> {
  const row = await sql.first<ShareRow>(db, Q.putShare, [
    accountId,
    shipmentId,
    share.tokenHash,
    share.nonce,
    share.expiresAt.toISOString(),
    share.maxViews,
    share.now.toISOString(),
  ]);
  if (!row) throw new Error('INSERT INTO shipment_shares returned no row');
  return row;
}

/** The link stops working at once; revoking a revoked or missing link changes nothing. */
export async function revokeShare(db: Db, accountId: AccountId, shipmentId: number): Promise<void> {
  await sql.run(db, Q.revokeShare, [accountId, shipmentId]);
}

/** A working share link's shipment (the account id as stored: the caller decides the tenant). */
export interface ShareHitRow {
  account_id: string;
  shipment_id: number;
  expires_at: Date;
}

/** The shipment behind a working link, counting one view when `countView` (the conditional UPDATE is the whole check); null otherwise. */
export function viewShare(db: Db, tokenHash: Buffer, countView: boolean): Promise<ShareHitRow | null> {
  return sql.first<ShareHitRow>(db, countView ? Q.countShareView : Q.peekShareView, [tokenHash]);
}

/** The share a token hash belongs to, or null. */
export function shareByTokenHash(db: Db, tokenHash: Buffer): Promise<{ account_id: string; shipment_id: number; link_nonce: Buffer | null } | null> {
  return sql.first(db, Q.shareByTokenHash, [tokenHash]);
}
