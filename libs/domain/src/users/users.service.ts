import type { DataSource, EntityManager } from 'typeorm';
import type { User } from '@app/database';
import { NotFoundError } from '../errors';
import { COMPANY_ADMIN, type Role } from '@app/vocabulary';
import { companyAdminProtected, roleNotAssignable } from './users.errors';
import { deactivateCustomerUser, findCustomerUser, listCustomerUsers, updateCustomerUser } from './users.repository';
import type { AccountId, KeysetPage } from '@app/vocabulary';

/** Profile fields and the role; only the fields sent change (null clears phone and locale). */
export interface UserChanges {
  full_name?: string;
  phone?: string | null;
  locale?: string | null;
  role?: Role;
}

/**
 * Customer users of one account. Platform staff and superusers are filtered out of every query,
 * so addressing one is a 404 exactly like a missing user.
 */
export class UsersService {
  constructor(private readonly dataSource: DataSource) {}

  async list(accountId: AccountId, page: KeysetPage<string>): Promise<User[]> {
    return listCustomerUsers(this.dataSource, accountId, page.after ?? undefined, page.limit + 1);
  }

  async get(accountId: AccountId, userId: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<User> {
    const user = await findCustomerUser(manager, accountId, userId, lock);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  async update(accountId: AccountId, userId: string, changes: UserChanges): Promise<User> {
    return this.dataSource.transaction(async (manager) => {
      const user = await this.get(accountId, userId, manager, true);
      if (changes.role !== undefined && changes.role !== user.role) {
        if (user.role === COMPANY_ADMIN) throw companyAdminProtected('given another role');
        if (changes.role === COMPANY_ADMIN) throw roleNotAssignable();
        user.role = changes.role;
      }
      if (changes.full_name !== undefined) user.fullName = changes.full_name;
      if (changes.phone !== undefined) user.phone = changes.phone;
      if (changes.locale !== undefined) user.locale = changes.locale;
      return updateCustomerUser(manager, accountId, user);
    });
  }

  /** Deactivation keeps the user (and its history); repeating it changes nothing. */
  async deactivate(accountId: AccountId, userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const user = await this.get(accountId, userId, manager, true);
      if (user.role === COMPANY_ADMIN) throw companyAdminProtected('deactivated');
      if (!user.isActive) return;
      await deactivateCustomerUser(manager, accountId, userId, new Date());
    });
  }
}
