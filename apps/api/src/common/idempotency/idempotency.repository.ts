import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { sql } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { IDEMPOTENCY_QUERIES as Q } from './idempotency.queries';

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
export class IdempotencyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async claim(scope: IdempotencyScope, requestHash: string): Promise<ClaimResult> {
    // Expired or abandoned records are replaced atomically by the upsert's WHERE clause.
    const claimed = await sql.count(this.dataSource, Q.claim, [scope.accountId, scope.credentialId, scope.key, requestHash, IDEMPOTENCY_TTL_HOURS, IN_PROGRESS_TIMEOUT_SECONDS]);
    if (claimed > 0) return { outcome: 'claimed' };
    const row = await sql.first<StoredRow>(this.dataSource, Q.find, [scope.accountId, scope.credentialId, scope.key]);
    if (!row) return this.claim(scope, requestHash); // released between our two statements
    if (row.request_hash !== requestHash) return { outcome: 'mismatch' };
    if (row.state === 'in_progress' || row.response_status === null) return { outcome: 'in_progress' };
    return { outcome: 'replay', status: row.response_status, body: row.response_body, headers: row.response_headers ?? {} };
  }

  async complete(scope: IdempotencyScope, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
    await sql.run(this.dataSource, Q.complete, [scope.accountId, scope.credentialId, scope.key, status, JSON.stringify(body ?? null), JSON.stringify(headers)]);
  }

  /** After an unexpected failure the key is released so the client can retry it. */
  async release(scope: IdempotencyScope): Promise<void> {
    await sql.run(this.dataSource, Q.release, [scope.accountId, scope.credentialId, scope.key]);
  }

  async purgeExpired(): Promise<number> {
    return sql.count(this.dataSource, Q.purgeExpired);
  }
}
