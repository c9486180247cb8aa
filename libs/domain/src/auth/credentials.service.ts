import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newId } from '@app/database';
import type { AccountId } from '@app/vocabulary';
import { accountsByIds } from '../accounts';
import {
  findCredentialByClientId,
  insertCredential,
  listOwnedCredentialRows,
  replaceCredentialAccounts,
  revokeCredential,
  revokeOwnedCredential,
  touchCredential,
  type CredentialLookupRow,
} from './credentials.repository';
import { UUID_PATTERN } from '@app/vocabulary';
import { hashSecret } from './secret-hash';
import { ALL_SCOPES, isScope } from '@app/vocabulary';

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

export class CredentialInputError extends Error {}

/** The credential of this id exists already: a resubmitted form. Nothing was changed. */
export class CredentialAlreadyCreatedError extends Error {}

export const generateClientId = (): string => `cc_${randomBytes(12).toString('hex')}`;
export const generateClientSecret = (): string => `ccs_${randomBytes(32).toString('base64url')}`;

/** Management of API credentials, shared by the CLI (platform side) and the web panel (`*Owned`: one company's own). */
export class CredentialsService {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: CreateCredentialInput): Promise<CreatedCredential> {
    const scopes = input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)] : [...ALL_SCOPES];
    const unknown = scopes.filter((s) => !isScope(s));
    if (unknown.length > 0) throw new CredentialInputError(`unknown scopes: ${unknown.join(', ')}`);
    if (input.accountIds.length === 0) throw new CredentialInputError('at least one account is required');
    const accounts = await accountsByIds(this.dataSource, input.accountIds);
    const missing = input.accountIds.filter((id) => !accounts.some((a) => a.id === id));
    if (missing.length > 0) throw new CredentialInputError(`unknown accounts: ${missing.join(', ')}`);

    if (input.id !== undefined && !UUID_PATTERN.test(input.id)) throw new CredentialInputError('not a credential id');

    const id = input.id ?? newId();
    const clientId = input.clientId ?? generateClientId();
    const secret = input.secret ?? generateClientSecret();
    const secretHash = await hashSecret(secret);
    const credential = { id, clientId, secretHash, name: input.name, scopes, ownerAccountId: input.ownerAccountId ?? null, accountIds: accounts.map((a) => a.id) };
    const inserted = await this.dataSource.transaction((manager) => insertCredential(manager, credential, input.id !== undefined));
    if (!inserted) throw new CredentialAlreadyCreatedError();
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
  /** The credential of this client id (revoked ones too), with its scopes and accounts: what the token exchange checks. */
  findByClientId(clientId: string): Promise<CredentialLookupRow | null> {
    return findCredentialByClientId(this.dataSource, clientId);
  }

  /** Records that the credential was used (the statement skips it within a minute of the last use). */
  async recordUse(credentialId: string): Promise<void> {
    await touchCredential(this.dataSource, credentialId);
  }

  async revoke(clientIdOrId: string): Promise<boolean> {
    return revokeCredential(this.dataSource, clientIdOrId);
  }

  /** The credentials a company owns, newest first, revoked ones included. */
  async listOwned(ownerAccountId: AccountId): Promise<OwnedCredential[]> {
    return this.queryOwned(ownerAccountId, null);
  }

  async getOwned(ownerAccountId: AccountId, credentialId: string): Promise<OwnedCredential | null> {
    if (!UUID_PATTERN.test(credentialId)) return null;
    return (await this.queryOwned(ownerAccountId, credentialId))[0] ?? null;
  }

  /** Revokes a credential of this owner; another owner's credential is "not found". */
  async revokeOwned(ownerAccountId: AccountId, credentialId: string): Promise<'revoked' | 'already_revoked' | 'not_found'> {
    if (!UUID_PATTERN.test(ownerAccountId) || !UUID_PATTERN.test(credentialId)) return 'not_found';
    const revoked = await revokeOwnedCredential(this.dataSource, ownerAccountId, credentialId);
    if (revoked === null) return 'not_found';
    return revoked ? 'revoked' : 'already_revoked';
  }

  private async queryOwned(ownerAccountId: AccountId, credentialId: string | null): Promise<OwnedCredential[]> {
    if (!UUID_PATTERN.test(ownerAccountId)) return [];
    const rows = await listOwnedCredentialRows(this.dataSource, ownerAccountId, credentialId);
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
    await this.dataSource.transaction((manager) => replaceCredentialAccounts(manager, credentialId, accountIds));
  }
}
