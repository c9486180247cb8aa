import { createHmac, randomBytes } from 'node:crypto';
import { In, type DataSource } from 'typeorm';
import { Account, ApiCredential, newId } from '@app/database';
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
}

export class CredentialInputError extends Error {}

export const generateClientId = (): string => `cc_${randomBytes(12).toString('hex')}`;
export const generateClientSecret = (): string => `ccs_${randomBytes(32).toString('base64url')}`;

/** The demo fixture's secrets are derived from the deployment key, never stored in clear. */
export function demoSecret(secretsKey: Buffer, clientId: string): string {
  return `ccs_${createHmac('sha256', secretsKey).update(`demo:${clientId}`).digest('base64url')}`;
}

/** Platform-side management of API credentials, shared by the CLI and (later) the web panel. */
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

    const clientId = input.clientId ?? generateClientId();
    const secret = input.secret ?? generateClientSecret();
    const credential = this.dataSource.getRepository(ApiCredential).create({
      id: newId(),
      clientId,
      secretHash: await hashSecret(secret),
      name: input.name,
      scopes,
      ownerAccountId: input.ownerAccountId ?? null,
      revokedAt: null,
      lastUsedAt: null,
      accounts,
    });
    await this.dataSource.getRepository(ApiCredential).save(credential);
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
