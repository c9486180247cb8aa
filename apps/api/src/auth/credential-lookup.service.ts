import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, type AppLogger } from '@app/observability';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { CredentialsService } from '@app/domain';

export interface CredentialRecord {
  id: string;
  clientId: string;
  secretHash: string;
  scopes: string[];
  revoked: boolean;
  /** Active customer accounts on the allow-list, in a stable order. */
  accountIds: string[];
}

/** "Last used" is kept to the minute; a touch within this interval changes nothing. */
const TOUCH_INTERVAL_MS = 60_000;
const MAX_REMEMBERED_TOUCHES = 10_000;

/**
 * Reads a credential with its usable allow-list in one round trip. Called on every request, so a
 * revoked credential or a changed allow-list takes effect on the very next call.
 */
@Injectable()
export class CredentialLookupService {
  /** When this process last sent the UPDATE for each credential. */
  private readonly touchedAt = new Map<string, number>();


  private readonly credentials: CredentialsService;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {
    this.credentials = new CredentialsService(dataSource);
  }

  async findByClientId(clientId: string): Promise<CredentialRecord | null> {
    const row = await this.credentials.findByClientId(clientId);
    if (!row) return null;
    return {
      id: row.id,
      clientId: row.client_id,
      secretHash: row.secret_hash,
      scopes: row.scopes,
      revoked: row.revoked,
      accountIds: row.account_ids,
    };
  }

  /**
   * Best effort, off the request path: "last used" is informational. The UPDATE already changes
   * nothing within a minute of the last use; this process also skips sending it (a database round
   * trip per API call) within a minute of its own last touch.
   */
  touch(credentialId: string): void {
    const now = Date.now();
    const last = this.touchedAt.get(credentialId);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    if (this.touchedAt.size >= MAX_REMEMBERED_TOUCHES) this.touchedAt.clear();
    this.touchedAt.set(credentialId, now);
    void this.credentials.recordUse(credentialId)
      // Informational only: a failure must not fail the request, but it is not hidden either.
      .catch((error: unknown) => this.logger.warn({ err: error, credentialId }, 'could not record the last use of a credential'));
  }
}
