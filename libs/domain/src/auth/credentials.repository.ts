import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { CREDENTIAL_QUERIES as Q } from './credentials.queries';

export interface CredentialLookupRow {
  id: string;
  client_id: string;
  secret_hash: string;
  scopes: string[];
  revoked: boolean;
  account_ids: string[];
}

export interface OwnedCredentialRow {
  id: string;
  client_id: string;
  name: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  accounts: Array<{ id: string; name: string }>;
}

export function findCredentialByClientId(db: Db, clientId: string): Promise<CredentialLookupRow | null> {
  return sql.first<CredentialLookupRow>(db, Q.findByClientId, [clientId]);
}

export async function touchCredential(db: Db, credentialId: string): Promise<void> {
  await sql.run(db, Q.touch, [credentialId]);
}

export interface NewCredential {
  id: string;
  clientId: string;
  secretHash: string;
  name: string;
  scopes: string[];
  ownerAccountId: string | null;
  accountIds: string[];
}

/**
 * Inserts the credential and its accounts. With `refuseExisting` (a caller-chosen id), one with
 * that id already there makes it a no-op that returns false: the lock and the check make a
 * resubmission idempotent instead of a primary-key error.
 */
export async function insertCredential(db: Db, credential: NewCredential, refuseExisting: boolean): Promise<boolean> {
  if (refuseExisting) {
    await sql.run(db, Q.lockId, [credential.id]);
    if (await sql.first(db, Q.exists, [credential.id])) return false;
  }
  await sql.run(db, Q.insert, [credential.id, credential.clientId, credential.secretHash, credential.name, credential.scopes, credential.ownerAccountId]);
  for (const accountId of credential.accountIds) await sql.run(db, Q.addAccount, [credential.id, accountId]);
  return true;
}

export async function revokeCredential(db: Db, clientIdOrId: string): Promise<boolean> {
  return (await sql.count(db, Q.revoke, [clientIdOrId])) > 0;
}

export function listOwnedCredentialRows(db: Db, owner: AccountId, credentialId: string | null): Promise<OwnedCredentialRow[]> {
  return sql.rows<OwnedCredentialRow>(db, Q.listOwned, [owner, credentialId]);
}

/** null: no such credential of this owner; otherwise whether this call revoked it. */
export async function revokeOwnedCredential(db: Db, owner: AccountId, credentialId: string): Promise<boolean | null> {
  const row = await sql.first<{ revoked: boolean }>(db, Q.revokeOwned, [owner, credentialId]);
  return row ? row.revoked : null;
}

export async function replaceCredentialAccounts(db: Db, credentialId: string, accountIds: string[]): Promise<void> {
  await sql.run(db, Q.clearAccounts, [credentialId]);
  for (const accountId of accountIds) await sql.run(db, Q.addAccount, [credentialId, accountId]);
}
