import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newId } from '@app/database';

export interface UserRow {
  accountId: string | null;
  role?: string | null;
  staff?: boolean;
  superuser?: boolean;
  email?: string;
  passwordHash?: string | null;
}

/** Inserts a user directly, as the platform (not the API) would. */
export async function insertUser(dataSource: DataSource, row: UserRow): Promise<string> {
  const id = newId();
  await dataSource.query(
    `INSERT INTO users (id, account_id, email, full_name, role, is_active, is_platform_staff, is_superuser, password_hash)
     VALUES ($1, $2, $3, $4, $5, true, $6, $7, $8)`,
    [
      id,
      row.accountId,
      row.email ?? `user-${randomUUID()}@example.com`,
      'Test User',
      row.role === undefined ? 'OPERATOR' : row.role,
      row.staff ?? false,
      row.superuser ?? false,
      row.passwordHash ?? null,
    ],
  );
  return id;
}
