import { In } from 'typeorm';
import { Account } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import { ACCOUNT_QUERIES as Q } from './accounts.queries';

/** Of the given ids, the accounts after `after` in id order (keyset), at most `limit`. */
export function listAccountsAmong(db: Db, ids: readonly string[], after: string | null, limit: number): Promise<Account[]> {
  return db.getRepository(Account).find({
    where: { id: In(after === null ? [...ids] : ids.filter((id) => id > after)) },
    order: { id: 'ASC' },
    take: limit,
  });
}

/** The accounts among these ids that exist (any status or kind). */
export function findAccountsByIds(db: Db, ids: string[]): Promise<Account[]> {
  return db.getRepository(Account).findBy({ id: In(ids) });
}

export function findAccount(db: Db, id: string): Promise<Account | null> {
  return db.getRepository(Account).findOneBy({ id });
}

export async function updateAccount(db: Db, id: string, patch: Partial<Account>): Promise<void> {
  await db.getRepository(Account).update({ id }, patch);
}

export function insertAccount(db: Db, values: Partial<Account>): Promise<Account> {
  const repository = db.getRepository(Account);
  return repository.save(repository.create(values));
}

export async function countAccounts(db: Db): Promise<number> {
  return db.getRepository(Account).count();
}

export async function seedDemoAccount(db: Db, account: { id: string; name: string; kind: string; status: string }): Promise<void> {
  await sql.run(db, Q.seedDemoAccount, [account.id, account.name, account.kind, account.status]);
}
