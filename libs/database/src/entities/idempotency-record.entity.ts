import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { AccountId } from '@app/vocabulary';

export type IdempotencyState = 'in_progress' | 'completed';

/** The stored outcome of a record-creating POST, keyed by (credential, account, Idempotency-Key). */
@Entity('idempotency_records')
export class IdempotencyRecord {
  @PrimaryColumn({ name: 'credential_id', type: 'uuid' }) credentialId: string;
  @PrimaryColumn({ name: 'account_id', type: 'uuid' }) accountId: AccountId;
  @PrimaryColumn({ name: 'idempotency_key' }) key: string;
  @Column({ name: 'request_hash' }) requestHash: string;
  @Column({ type: 'text' }) state: IdempotencyState;
  @Column({ name: 'response_status', type: 'int', nullable: true }) responseStatus: number | null;
  @Column({ name: 'response_body', type: 'jsonb', nullable: true }) responseBody: unknown;
  @Column({ name: 'response_headers', type: 'jsonb', nullable: true }) responseHeaders: Record<string, string> | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt: Date;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt: Date;
}
