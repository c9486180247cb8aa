import type { Account } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import { type ACCOUNT_PROFILE_COLUMNS, ACCOUNT_QUERIES as Q } from './accounts.queries';

export type AccountProfileColumn = (typeof ACCOUNT_PROFILE_COLUMNS)[number];

/** Of the given ids, the accounts after `after` in id order (keyset), at most `limit`. */
export function listAccountsAmong(db: Db, ids: readonly string[], after: string | null, limit: number): Promise<Account[]> {
  return sql.rows<Account>(db, Q.listAmong, [[...ids], after, limit]);
}

/** The accounts among these ids that exist (any status or kind). */
export function findAccountsByIds(db: Db, ids: string[]): Promise<Account[]> {
  return sql.rows<Account>(db, Q.findByIds, [ids]);
}

export function findAccount(db: Db, id: string): Promise<Account | null> {
  return sql.first<Account>(db, Q.find, [id]);
}

/** Sets the given profile columns (null clears one); the others keep their values. */
export async function updateAccountProfile(db: Db, id: string, changes: Partial<Record<AccountProfileColumn, string | null>>): Promise<void> {
  await sql.run(db, Q.updateProfile, [id, JSON.stringify(changes)]);
}

export async function insertAccount(
  db: Db,
  values: Pick<Account, 'id' | 'name' | 'kind' | 'status' | 'subscriptionPlan' | 'subscriptionValidUntil' | 'contactEmail'>,
): Promise<Account> {
  const row = await sql.first<Account>(db, Q.insert, [values.id, values.name, values.kind, values.status, values.subscriptionPlan, values.subscriptionValidUntil, values.contactEmail]);
  if (!row) throw new Error('the account insert returned no row');
  return row;
}

