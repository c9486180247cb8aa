import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { AppConfig } from '@app/config';
import { execSql } from '@app/database';
import { NotFoundError, ValidationFailedError } from '../common/api-error';
import { APP_CONFIG } from '../config/config.module';
import { SHARE_LIMITS, type PutShareDto, type ShareDto } from './dto/share.dto';
import { hashShareToken, newShareToken, SHARE_TOKEN_PATTERN, TRACKING_PAGE_PATH } from './share-token';

interface ShareRow {
  expires_at: Date;
  max_views: number;
  view_count: number;
  created_at: Date;
  revoked_at: Date | null;
}

const HOUR_MS = 3_600_000;
/** Clock and network slack on the bounds of `expires_at`. */
const EXPIRY_TOLERANCE_MS = 60_000;

/** The identity of a shipment opened through a share link (server side only, never rendered). */
export interface SharedShipment {
  accountId: string;
  shipmentId: number;
  expiresAt: Date;
}

function present(row: ShareRow | undefined, now: Date, url: string | null = null): ShareDto {
  if (!row) return { enabled: false, url: null, expires_at: null, max_views: null, view_count: 0, created_at: null, revoked_at: null };
  return {
    enabled: row.revoked_at === null && row.expires_at.getTime() > now.getTime() && row.view_count < row.max_views,
    url,
    expires_at: row.expires_at.toISOString(),
    max_views: row.max_views,
    view_count: row.view_count,
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

type ShareHit = { account_id: string; shipment_id: number; expires_at: Date };

/**
 * The single share record of a shipment (spec §2.3). The token is random, stored as its SHA-256
 * only, and appears in exactly one response: the PUT that creates or refreshes it.
 */
@Injectable()
export class ShareService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(accountId: string, shipmentId: number): Promise<ShareDto> {
    return this.dataSource.transaction(async (manager) => {
      await this.requireShipment(manager, accountId, shipmentId);
      return present(await this.row(manager, accountId, shipmentId), new Date());
    });
  }

  /** Creates the record, or refreshes it: a new token (the old link dies at once) and the view count back to 0. */
  async put(accountId: string, shipmentId: number, body: PutShareDto): Promise<ShareDto> {
    const now = new Date();
    const expiresAt = this.expiry(body, now);
    const token = newShareToken();
    return this.dataSource.transaction(async (manager) => {
      await this.requireShipment(manager, accountId, shipmentId);
      const [row] = (await manager.query(
        `INSERT INTO shipment_shares (shipment_id, account_id, token_hash, expires_at, max_views, view_count, created_at, revoked_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 0, $6, NULL, $6)
         ON CONFLICT (shipment_id) DO UPDATE
           SET token_hash = EXCLUDED.token_hash, expires_at = EXCLUDED.expires_at, max_views = EXCLUDED.max_views,
               view_count = 0, created_at = EXCLUDED.created_at, revoked_at = NULL, updated_at = EXCLUDED.updated_at
         RETURNING expires_at, max_views, view_count, created_at, revoked_at`,
        [shipmentId, accountId, hashShareToken(token), expiresAt.toISOString(), body.max_views, now.toISOString()],
      )) as ShareRow[];
      return present(row, now, `${this.config.publicBaseUrl}/${TRACKING_PAGE_PATH}/${token}`);
    });
  }

  /** The link stops working at once; revoking a revoked or missing link changes nothing. */
  async revoke(accountId: string, shipmentId: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.requireShipment(manager, accountId, shipmentId);
      await manager.query(
        `UPDATE shipment_shares SET revoked_at = now(), updated_at = now() WHERE account_id = $1 AND shipment_id = $2 AND revoked_at IS NULL`,
        [accountId, shipmentId],
      );
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
    const working = `sh.token_hash = $1 AND sh.revoked_at IS NULL AND sh.expires_at > now() AND sh.view_count < sh.max_views
          AND EXISTS (SELECT 1 FROM shipments s WHERE s.id = sh.shipment_id AND s.account_id = sh.account_id AND s.deleted_at IS NULL)`;
    const sql = countView
      ? `UPDATE shipment_shares sh SET view_count = sh.view_count + 1 WHERE ${working} RETURNING sh.account_id, sh.shipment_id, sh.expires_at`
      : `SELECT sh.account_id, sh.shipment_id, sh.expires_at FROM shipment_shares sh WHERE ${working}`;
    const row = (await execSql<ShareHit>(this.dataSource, sql, [hashShareToken(token)])).rows[0];
    return row ? { accountId: row.account_id, shipmentId: row.shipment_id, expiresAt: row.expires_at } : null;
  }

  private expiry(body: PutShareDto, now: Date): Date {
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

  private async requireShipment(manager: EntityManager, accountId: string, shipmentId: number): Promise<void> {
    const rows = (await manager.query(`SELECT 1 FROM shipments WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL FOR KEY SHARE`, [accountId, shipmentId])) as unknown[];
    if (rows.length === 0) throw new NotFoundError('Shipment');
  }

  private async row(manager: EntityManager, accountId: string, shipmentId: number): Promise<ShareRow | undefined> {
    const rows = (await manager.query(
      `SELECT expires_at, max_views, view_count, created_at, revoked_at FROM shipment_shares WHERE account_id = $1 AND shipment_id = $2`,
      [accountId, shipmentId],
    )) as ShareRow[];
    return rows[0];
  }
}
