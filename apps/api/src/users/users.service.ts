import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { User } from '@app/database';
import { COMPANY_ADMIN, findCustomerUser, listCustomerUsers, saveUser } from '@app/domain';
import { NotFoundError } from '../common/api-error';
import type { PageRequest } from '../common/paginator';
import type { UpdateUserDto } from './dto/update-user.dto';
import { companyAdminProtected, roleNotAssignable } from './users.errors';
import type { AccountId } from '@app/vocabulary';

/**
 * Customer users of one account. Platform staff and superusers are filtered out of every query,
 * so addressing one is a 404 exactly like a missing user.
 */
@Injectable()
export class UsersService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(accountId: AccountId, page: PageRequest): Promise<User[]> {
    const after = page.after?.[0];
    return listCustomerUsers(this.dataSource, accountId, typeof after === 'string' ? after : undefined, page.limit + 1);
  }

  async get(accountId: AccountId, userId: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<User> {
    const user = await findCustomerUser(manager, accountId, userId, lock);
    if (!user) throw new NotFoundError('User');
    return user;
  }

  async update(accountId: AccountId, userId: string, changes: UpdateUserDto): Promise<User> {
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
      return saveUser(manager, user);
    });
  }

  /** Deactivation keeps the user (and its history); repeating it changes nothing. */
  async deactivate(accountId: AccountId, userId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const user = await this.get(accountId, userId, manager, true);
      if (user.role === COMPANY_ADMIN) throw companyAdminProtected('deactivated');
      if (!user.isActive) return;
      user.isActive = false;
      user.deactivatedAt = new Date();
      await saveUser(manager, user);
    });
  }
}
