import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AccountId } from '@app/vocabulary';

export const IDEMPOTENCY_TTL_HOURS = 24;
/** A first request that has not finished after this long is presumed dead and may be retried. */
export const IN_PROGRESS_TIMEOUT_SECONDS = 120;

export interface IdempotencyScope {
  credentialId: string;
  accountId: AccountId;
  key: string;
}

export type ClaimResult =
  | { outcome: 'claimed' }
  | { outcome: 'replay'; status: number; body: unknown; headers: Record<string, string> }
  | { outcome: 'in_progress' }
  | { outcome: 'mismatch' };

interface StoredRow {
  request_hash: string;
  state: 'in_progress' | 'completed';
  response_status: number | null;
  response_body: unknown;
  response_headers: Record<string, string> | null;
}

/** Idempotency records in PostgreSQL: the primary key makes the first claim win a race. */
@Injectable()
export class IdempotencyStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async claim(scope: IdempotencyScope, requestHash: string): Promise<ClaimResult> {
    // Expired or abandoned records are replaced atomically by the upsert's WHERE clause.
    const claimed: unknown[] = await this.dataSource.query(
      `INSERT INTO idempotency_records (credential_id, account_id, idempotency_key, request_hash, state, created_at, expires_at)
       VALUES ($1, $2, $3, $4, 'in_progress', now(), now() + make_interval(hours => $5))
       ON CONFLICT (credential_id, account_id, idempotency_key) DO UPDATE
          SET request_hash = EXCLUDED.request_hash, state = 'in_progress', response_status = NULL,
              response_body = NULL, response_headers = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE idempotency_records.expires_at < now()
           OR (idempotency_records.state = 'in_progress'
               AND idempotency_records.created_at < now() - make_interval(secs => $6))
       RETURNING 1`,
      [scope.credentialId, scope.accountId, scope.key, requestHash, IDEMPOTENCY_TTL_HOURS, IN_PROGRESS_TIMEOUT_SECONDS],
    );
    if (claimed.length > 0) return { outcome: 'claimed' };
    const rows: StoredRow[] = await this.dataSource.query(
      `SELECT request_hash, state, response_status, response_body, response_headers FROM idempotency_records
        WHERE credential_id = $1 AND account_id = $2 AND idempotency_key = $3`,
      [scope.credentialId, scope.accountId, scope.key],
    );
    const row = rows[0];
    if (!row) return this.claim(scope, requestHash); // released between our two statements
    if (row.request_hash !== requestHash) return { outcome: 'mismatch' };
    if (row.state === 'in_progress' || row.response_status === null) return { outcome: 'in_progress' };
    return { outcome: 'replay', status: row.response_status, body: row.response_body, headers: row.response_headers ?? {} };
  }

  async complete(scope: IdempotencyScope, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
    await this.dataSource.query(
      `UPDATE idempotency_records SET state = 'completed', response_status = $4, response_body = $5::jsonb, response_headers = $6::jsonb
        WHERE credential_id = $1 AND account_id = $2 AND idempotency_key = $3`,
      [scope.credentialId, scope.accountId, scope.key, status, JSON.stringify(body ?? null), JSON.stringify(headers)],
    );
  }

  /** After an unexpected failure the key is released so the client can retry it. */
  async release(scope: IdempotencyScope): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM idempotency_records WHERE credential_id = $1 AND account_id = $2 AND idempotency_key = $3 AND state = 'in_progress'`,
      [scope.credentialId, scope.accountId, scope.key],
    );
  }

  async purgeExpired(): Promise<number> {
    const rows: unknown[] = await this.dataSource.query(`DELETE FROM idempotency_records WHERE expires_at < now() RETURNING 1`);
    return rows.length;
  }
}
