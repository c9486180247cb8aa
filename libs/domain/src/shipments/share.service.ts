import type { DataSource, EntityManager } from 'typeorm';
import { NotFoundError, ValidationFailedError } from '../errors';
import { timingSafeEqual } from 'node:crypto';
import { deriveShareToken, newShareNonce, shareLinkKey } from './share-link';
import { hashShareToken, SHARE_TOKEN_PATTERN, TRACKING_PAGE_PATH } from './share-token';
import { SHARE_LIMITS } from './shipment-limits';
import { keyShareShipment } from './shipments.repository';
import { findShare, putShare, revokeShare, shareByTokenHash, viewShare, type ShareRow } from './shipment-shares.repository';
import { type AccountId, toAccountId } from '@app/vocabulary';

const HOUR_MS = 3_600_000;
/** Clock and network slack on the bounds of `expires_at`. */
const EXPIRY_TOLERANCE_MS = 60_000;

/** What the service needs of the configuration: the secrets key links derive from, and the public base URL. */
export interface ShareLinkConfig {
  secretsKey: Buffer;
  publicBaseUrl: string;
}

/** PUT: the link's lifetime (exactly one of `expires_at`, `expires_in_hours`) and its view limit (the api's `PutShareDto` satisfies it). */
export interface ShareLinkRequest {
  expires_at?: string;
  expires_in_hours?: number;
  max_views: number;
}

/** The sharing status of a shipment (the api's `ShareDto`). */
export interface ShareLinkState {
  enabled: boolean;
  url: string | null;
  expires_at: string | null;
  max_views: number | null;
  view_count: number;
  created_at: string | null;
  revoked_at: string | null;
}

/** The identity of a shipment opened through a share link (server side only, never rendered). */
export interface SharedShipment {
  accountId: AccountId;
  shipmentId: number;
  expiresAt: Date;
}

function present(row: ShareRow | null, now: Date, link: (row: ShareRow) => string | null): ShareLinkState {
  if (!row) return { enabled: false, url: null, expires_at: null, max_views: null, view_count: 0, created_at: null, revoked_at: null };
  const enabled = row.revoked_at === null && row.expires_at.getTime() > now.getTime() && row.view_count < row.max_views;
  return {
    enabled,
    url: enabled ? link(row) : null,
    expires_at: row.expires_at.toISOString(),
    max_views: row.max_views,
    view_count: row.view_count,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

/**
 * The single share record of a shipment (spec §2.3). Its link token is derived — an HMAC under a
 * key derived from SECRETS_KEY over the share's account, shipment and a per-refresh nonce — so
 * every GET can show the working URL while the database alone (nonce and the token's SHA-256)
 * never yields one. A refresh draws a new nonce (the previous link dies at once); rotating
 * SECRETS_KEY invalidates every link (GET then shows `url: null` until the share is refreshed).
 */
export class ShareService {
  private readonly linkKey: Buffer;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: ShareLinkConfig,
  ) {
    this.linkKey = shareLinkKey(config.secretsKey);
  }

  async get(accountId: AccountId, shipmentId: number): Promise<ShareLinkState> {
    return this.dataSource.transaction(async (manager) => {
      await this.requireShipment(manager, accountId, shipmentId);
      return present(await findShare(manager, accountId, shipmentId), new Date(), (row) => this.url(accountId, shipmentId, row));
    });
  }

  /** The share's working URL, or null when it cannot be derived (no nonce, or SECRETS_KEY changed since). */
  private url(accountId: AccountId, shipmentId: number, row: Pick<ShareRow, 'link_nonce' | 'token_hash'>): string | null {
    if (!row.link_nonce) return null;
    const token = deriveShareToken(this.linkKey, { accountId, shipmentId, nonce: row.link_nonce });
    const hash = hashShareToken(token);
    if (hash.length !== row.token_hash.length || !timingSafeEqual(hash, row.token_hash)) return null;
    return `${this.config.publicBaseUrl}/${TRACKING_PAGE_PATH}/${token}`;
  }

  /** Creates the record, or refreshes it: a new token (the old link dies at once) and the view count back to 0. */
  async put(accountId: AccountId, shipmentId: number, body: ShareLinkRequest): Promise<ShareLinkState> {
    const now = new Date();
    const expiresAt = this.expiry(body, now);
    const nonce = newShareNonce();
    const token = deriveShareToken(this.linkKey, { accountId, shipmentId, nonce });
    return this.dataSource.transaction(async (manager) => {
      await this.requireShipment(manager, accountId, shipmentId);
      const row = await putShare(manager, accountId, shipmentId, { tokenHash: hashShareToken(token), nonce, expiresAt, maxViews: body.max_views, now });
      return present(row, now, (stored) => this.url(accountId, shipmentId, stored));
    });
  }

  /** The link stops working at once; revoking a revoked or missing link changes nothing. */
  async revoke(accountId: AccountId, shipmentId: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.requireShipment(manager, accountId, shipmentId);
      await revokeShare(manager, accountId, shipmentId);
    });
  }

  /**
   * Counts one view of the page behind `token` and returns what it shows, or null when the link is
   * unknown, revoked, expired, used up, or its shipment deleted. The conditional UPDATE is the
   * whole check: concurrent views queue on the row and re-check `view_count < max_views`, so
   * the limit is never exceeded.
   */
  async consumeView(token: string): Promise<SharedShipment | null> {
    return this.viewable(token, true);
  }

  /** The same answer as `consumeView` without counting a view: HEAD requests (link checkers, unfurlers). */
  async peekView(token: string): Promise<SharedShipment | null> {
    return this.viewable(token, false);
  }

  private async viewable(token: string, countView: boolean): Promise<SharedShipment | null> {
    if (!SHARE_TOKEN_PATTERN.test(token)) return null;
    if (!(await this.derivedWithCurrentKey(token))) return null;
    const row = await viewShare(this.dataSource, hashShareToken(token), countView);
    return row ? { accountId: toAccountId(row.account_id), shipmentId: row.shipment_id, expiresAt: row.expires_at } : null;
  }

  /**
   * A token whose hash is stored must also be the one SECRETS_KEY derives from its share today:
   * after a rotation of the key, old links stop working. (Legacy shares without a nonce pass.)
   */
  private async derivedWithCurrentKey(token: string): Promise<boolean> {
    const share = await shareByTokenHash(this.dataSource, hashShareToken(token));
    if (!share) return false;
    if (!share.link_nonce) return true;
    const derived = Buffer.from(deriveShareToken(this.linkKey, { accountId: toAccountId(share.account_id), shipmentId: share.shipment_id, nonce: share.link_nonce }));
    const presented = Buffer.from(token);
    return derived.length === presented.length && timingSafeEqual(derived, presented);
  }

  private expiry(body: ShareLinkRequest, now: Date): Date {
    const field = (code: string, message: string) => new ValidationFailedError([{ field: 'expires_at', code, message }], message);
    if (body.expires_at !== undefined && body.expires_in_hours !== undefined) throw field('ambiguous_expiry', 'send expires_at or expires_in_hours, not both');
    if (body.expires_in_hours !== undefined) return new Date(now.getTime() + body.expires_in_hours * HOUR_MS);
    if (body.expires_at === undefined) throw field('required', 'send expires_at or expires_in_hours');
    const expiresAt = new Date(body.expires_at);
    const ahead = expiresAt.getTime() - now.getTime();
    if (ahead < SHARE_LIMITS.minHours * HOUR_MS - EXPIRY_TOLERANCE_MS || ahead > SHARE_LIMITS.maxHours * HOUR_MS + EXPIRY_TOLERANCE_MS) {
      throw field('out_of_range', 'expires_at must be between 1 hour and 90 days from now');
    }
    return expiresAt;
  }

  private async requireShipment(manager: EntityManager, accountId: AccountId, shipmentId: number): Promise<void> {
    if (!(await keyShareShipment(manager, accountId, shipmentId))) throw new NotFoundError('Shipment');
  }
}
