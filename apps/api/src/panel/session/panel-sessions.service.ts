import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { execSql, newId } from '@app/database';
import type { Role } from '@app/domain';
import { PANEL_USER_ALLOWED, type PanelContext } from './panel-context';
import { toAccountId, type AccountId } from '@app/vocabulary';

/** A session ends after this long without a request… */
export const SESSION_IDLE_MINUTES = 30;
/** …and in any case this long after sign-in. */
export const SESSION_ABSOLUTE_HOURS = 12;
/** last_seen_at is written at most this often (idle expiry does not need finer precision). */
const TOUCH_AFTER_SECONDS = 60;

const hashToken = (token: string): Buffer => createHash('sha256').update(token).digest();
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

interface SessionRow {
  id: string;
  csrf_token: string;
  expired: boolean;
  stale: boolean;
  allowed: boolean;
  user_id: string;
  email: string;
  full_name: string;
  role: Role;
  account_id: string;
  account_name: string;
  disabled_endpoints: number;
}

export type SessionLookup = { ok: true; context: PanelContext } | { ok: false; reason: 'signed_out' | 'session_expired' };

/**
 * Panel sessions in PostgreSQL. The browser holds a 256-bit random id; the table holds its SHA-256
 * only. Every lookup re-checks the user and the account, so deactivating either ends the session
 * on the next request.
 */
@Injectable()
export class PanelSessionsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new session (a new id on every sign-in: no fixation). Returns the cookie value. */
  async start(userId: string, accountId: AccountId): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await execSql(this.dataSource, 'DELETE FROM panel_sessions WHERE expires_at <= now() OR (user_id = $1 AND last_seen_at <= now() - make_interval(mins => $2))', [
      userId,
      SESSION_IDLE_MINUTES,
    ]);
    await execSql(
      this.dataSource,
      `INSERT INTO panel_sessions (id, token_hash, user_id, account_id, csrf_token, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6))`,
      [newId(), hashToken(token), userId, accountId, randomBytes(32).toString('base64url'), SESSION_ABSOLUTE_HOURS],
    );
    return token;
  }

  async resolve(token: string | null): Promise<SessionLookup> {
    if (!token || !TOKEN_PATTERN.test(token)) return { ok: false, reason: 'signed_out' };
    const { rows } = await execSql<SessionRow>(
      this.dataSource,
      `SELECT s.id, s.csrf_token,
              (s.expires_at <= now() OR s.last_seen_at <= now() - make_interval(mins => $2)) AS expired,
              s.last_seen_at <= now() - make_interval(secs => $3) AS stale,
              (${PANEL_USER_ALLOWED} AND u.account_id = s.account_id) AS allowed,
              u.id AS user_id, u.email, u.full_name, u.role, a.id AS account_id, a.name AS account_name,
              (SELECT count(*)::int FROM webhook_endpoints e WHERE e.account_id = s.account_id AND NOT e.enabled) AS disabled_endpoints
         FROM panel_sessions s
         JOIN users u ON u.id = s.user_id
         JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1`,
      [hashToken(token), SESSION_IDLE_MINUTES, TOUCH_AFTER_SECONDS],
    );
    const row = rows[0];
    if (!row) return { ok: false, reason: 'signed_out' };
    if (row.expired || !row.allowed) {
      await this.endById(row.id);
      return { ok: false, reason: row.expired ? 'session_expired' : 'signed_out' };
    }
    if (row.stale) await execSql(this.dataSource, 'UPDATE panel_sessions SET last_seen_at = now() WHERE id = $1', [row.id]);
    return {
      ok: true,
      context: {
        sessionId: row.id,
        csrfToken: row.csrf_token,
        user: { id: row.user_id, email: row.email, fullName: row.full_name, role: row.role },
        account: { id: toAccountId(row.account_id), name: row.account_name },
        disabledEndpoints: row.disabled_endpoints,
      },
    };
  }

  /** Deletes every ended session, idle or past its absolute limit (hourly housekeeping). */
  async purgeExpired(): Promise<number> {
    const { count } = await execSql(
      this.dataSource,
      'DELETE FROM panel_sessions WHERE expires_at <= now() OR last_seen_at <= now() - make_interval(mins => $1)',
      [SESSION_IDLE_MINUTES],
    );
    return count;
  }

  async endById(sessionId: string): Promise<void> {
    await execSql(this.dataSource, 'DELETE FROM panel_sessions WHERE id = $1', [sessionId]);
  }
}
