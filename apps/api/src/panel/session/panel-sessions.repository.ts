import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { PanelContext } from './panel-context';
import { newId } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import { PANEL_SESSION_QUERIES as Q } from './panel-sessions.queries';
import { toAccountId, type AccountId, type Role } from '@app/vocabulary';

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
export class PanelSessionsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A new session (a new id on every sign-in: no fixation). Returns the cookie value. */
  async start(userId: string, accountId: AccountId): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await sql.run(this.dataSource, Q.pruneForUser, [userId, SESSION_IDLE_MINUTES]);
    await sql.run(this.dataSource, Q.insert, [newId(), hashToken(token), userId, accountId, randomBytes(32).toString('base64url'), SESSION_ABSOLUTE_HOURS]);
    return token;
  }

  async resolve(token: string | null): Promise<SessionLookup> {
    if (!token || !TOKEN_PATTERN.test(token)) return { ok: false, reason: 'signed_out' };
    const row = await sql.first<SessionRow>(this.dataSource, Q.resolve, [hashToken(token), SESSION_IDLE_MINUTES, TOUCH_AFTER_SECONDS]);
    if (!row) return { ok: false, reason: 'signed_out' };
    if (row.expired || !row.allowed) {
      await this.endById(row.id);
      return { ok: false, reason: row.expired ? 'session_expired' : 'signed_out' };
    }
    if (row.stale) await sql.run(this.dataSource, Q.touch, [row.id]);
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
    return sql.count(this.dataSource, Q.purgeExpired, [SESSION_IDLE_MINUTES]);
  }

  async endById(sessionId: string): Promise<void> {
    await sql.run(this.dataSource, Q.end, [sessionId]);
  }
}

export interface SignInCandidateRow {
  id: string;
  account_id: string | null;
  password_hash: string | null;
  allowed: boolean;
}

/** Sign-in: the user with this e-mail (case-insensitive) and whether the panel admits them. */
export function findSignInCandidate(db: Db, email: string): Promise<SignInCandidateRow | null> {
  return sql.first<SignInCandidateRow>(db, Q.findSignInCandidate, [email]);
}
