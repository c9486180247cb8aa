import type { Account } from '@app/database';
import type { Db } from '@app/database/sql';
import { findAccount, findAccountsByIds } from './accounts.repository';

/** An account by id (any kind or status), for the families that act on one: invitations, credentials. */
export function accountById(db: Db, accountId: string): Promise<Account | null> {
  return findAccount(db, accountId);
}

/** The accounts among these ids that exist (any kind or status). */
export function accountsByIds(db: Db, accountIds: string[]): Promise<Account[]> {
  return findAccountsByIds(db, accountIds);
}
