import { createHmac, randomBytes } from 'node:crypto';
import { In, type DataSource } from 'typeorm';
import { Account, ApiCredential, execSql, newId } from '@app/database';
import { UUID_PATTERN } from '../formats';
import { hashSecret } from './secret-hash';
import { ALL_SCOPES, isScope } from './scopes';

export interface CreatedCredential {
  id: string;
  client_id: string;
  /** Shown exactly once, at creation. */
  client_secret: string;
  name: string;
  scopes: string[];
  account_ids: string[];
}

export interface CreateCredentialInput {
  name: string;
  accountIds: string[];
  scopes?: string[];
  ownerAccountId?: string | null;
  /** Only the demo fixture passes one, so that re-running it prints the same secret. */
  secret?: string;
  clientId?: string;
  /**
   * The web panel's form carries one id per rendered form, so that resubmitting it (a reload of the
   * page that showed the secret) cannot create a second credential.
   */
  id?: string;
}

/** What a company sees of its own credentials (the web panel). Never the secret or its hash. */
export interface OwnedCredential {
  id: string;
  client_id: string;
  name: string;
  scopes: string[];
  /** The allow-list. */
  accounts: Array<{ id: string; name: string }>;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

interface OwnedCredentialRow {
  id: string;
  client_id: string;
  name: string;
  scopes: string[];
  accounts: Array<{ id: string; name: string }>;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export class CredentialInputError extends Error {}

/** The credential of this id exists already: a resubmitted form. Nothing was changed. */
export class CredentialAlreadyCreatedError extends Error {}

export const generateClientId = (): string => `cc_${randomBytes(12).toString('hex')}`;
export const generateClientSecret = (): string => `ccs_${randomBytes(32).toString('base64url')}`;

/** The demo fixture's secrets are derived from the deployment key, never stored in clear. */
export function demoSecret(secretsKey: Buffer, clientId: string): string {
  return `ccs_${createHmac('sha256', secretsKey).update(`demo:${clientId}`).digest('base64url')}`;
}

/** Management of API credentials, shared by the CLI (platform side) and the web panel (`*Owned`: one company's own). */
export class CredentialsService {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: CreateCredentialInput): Promise<CreatedCredential> {
    const scopes = input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)] : [...ALL_SCOPES];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new CredentialInputError(`unknown scopes: ${unknown.join(', ')}`);
    if (input.accountIds.length === 0) throw new CredentialInputError('at least one account is required');
    const accounts = await this.dataSource.getRepository(Account).findBy({ id: In(input.accountIds) });
    const missing = input.accountIds.filter((id) => !accounts.some((a) => a.id === id));
    if (missing.length > 0) throw new CredentialInputError(`unknown accounts: ${missing.join(', ')}`);

    if (input.id !== undefined && !UUID_PATTERN.test(input.id)) throw new CredentialInputError('not a credential id');

    const id = input.id ?? newId();
    const clientId = input.clientId ?? generateClientId();
    const secret = input.secret ?? generateClientSecret();
    const secretHash = await hashSecret(secret);
    const credential = this.dataSource.getRepository(ApiCredential).create({
      id,
      clientId,
      secretHash,
      name: input.name,
      scopes,
      ownerAccountId: input.ownerAccountId ?? null,
      revokedAt: null,
      lastUsedAt: null,
      accounts,
    });
    await this.dataSource.transaction(async (manager) => {
      if (input.id !== undefined) {
        // save() turns a known id into an UPDATE: the lock and the check make a resubmission a no-op
        await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [id]);
        const existing = (await manager.query('SELECT 1 FROM api_credentials WHERE id = $1', [id])) as unknown[];
        if (existing.length > 0) throw new CredentialAlreadyCreatedError();
      }
      await manager.getRepository(ApiCredential).save(credential);
    });
    return {
      id: credential.id,
      client_id: clientId,
      client_secret: secret,
      name: credential.name,
      scopes,
      account_ids: accounts.map((a) => a.id),
    };
  }

  /** Revocation takes effect on the next API call: every call looks the credential up. */
  async revoke(clientIdOrId: string): Promise<boolean> {
    const result = await this.dataSource.query(
      `UPDATE api_credentials SET revoked_at = now(), updated_at = now()
        WHERE (client_id = $1 OR id::text = $1) AND revoked_at IS NULL RETURNING id`,
      [clientIdOrId],
    );
    const rows = Array.isArray(result[0]) ? result[0] : result;
    return rows.length > 0;
  }

  /** The credentials a company owns, newest first, revoked ones included. */
  async listOwned(ownerAccountId: string): Promise<OwnedCredential[]> {
    return this.queryOwned(ownerAccountId, null);
  }

  async getOwned(ownerAccountId: string, credentialId: string): Promise<OwnedCredential | null> {
    if (!UUID_PATTERN.test(credentialId)) return null;
    return (await this.queryOwned(ownerAccountId, credentialId))[0] ?? null;
  }

  /** Revokes a credential of this owner; another owner's credential is "not found". */
  async revokeOwned(ownerAccountId: string, credentialId: string): Promise<'revoked' | 'already_revoked' | 'not_found'> {
    if (!UUID_PATTERN.test(ownerAccountId) || !UUID_PATTERN.test(credentialId)) return 'not_found';
    const { rows } = await execSql<{ revoked: boolean }>(
      this.dataSource,
      `WITH target AS (SELECT id, revoked_at FROM api_credentials WHERE owner_account_id = $1 AND id = $2 FOR UPDATE),
            updated AS (UPDATE api_credentials c SET revoked_at = now(), updated_at = now()
                          FROM target WHERE c.id = target.id AND target.revoked_at IS NULL RETURNING c.id)
       SELECT EXISTS (SELECT 1 FROM updated) AS revoked FROM target`,
      [ownerAccountId, credentialId],
    );
    if (rows.length === 0) return 'not_found';
    return rows[0].revoked ? 'revoked' : 'already_revoked';
  }

  private async queryOwned(ownerAccountId: string, credentialId: string | null): Promise<OwnedCredential[]> {
    if (!UUID_PATTERN.test(ownerAccountId)) return [];
    const { rows } = await execSql<OwnedCredentialRow>(
      this.dataSource,
      `SELECT c.id, c.client_id, c.name, c.scopes, c.created_at, c.last_used_at, c.revoked_at,
              COALESCE(json_agg(json_build_object('id', a.id, 'name', a.name) ORDER BY a.name, a.id) FILTER (WHERE a.id IS NOT NULL), '[]') AS accounts
         FROM api_credentials c
         LEFT JOIN api_credential_accounts ca ON ca.credential_id = c.id
         LEFT JOIN accounts a ON a.id = ca.account_id
        WHERE c.owner_account_id = $1 AND ($2::uuid IS NULL OR c.id = $2::uuid)
        GROUP BY c.id
        ORDER BY c.id DESC`,
      [ownerAccountId, credentialId],
    );
    return rows.map((row) => ({
      id: row.id,
      client_id: row.client_id,
      name: row.name,
      scopes: row.scopes,
      accounts: row.accounts,
      created_at: row.created_at.toISOString(),
      last_used_at: row.last_used_at ? row.last_used_at.toISOString() : null,
      revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    }));
  }

  async setAccounts(credentialId: string, accountIds: string[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query('DELETE FROM api_credential_accounts WHERE credential_id = $1', [credentialId]);
      for (const accountId of accountIds) {
        await manager.query('INSERT INTO api_credential_accounts (credential_id, account_id) VALUES ($1, $2)', [
          credentialId,
          accountId,
        ]);
      }
    });
  }
}
