import type { DataSource } from 'typeorm';
import { ACCOUNT_KINDS, ACCOUNT_STATUSES, type Account, type AccountKind, type AccountStatus, newId } from '@app/database';
import { findAccount, insertAccount } from './accounts.repository';

export interface CreateAccountInput {
  name: string;
  kind?: AccountKind;
  status?: AccountStatus;
  subscriptionPlan?: string;
  contactEmail?: string | null;
}

export class AccountInputError extends Error {}

/** Platform-side account management (the public API never creates accounts). */
export class AccountsAdminService {
  constructor(private readonly dataSource: DataSource) {}

  /** Any account by id (any kind or status), or null. */
  find(accountId: string): Promise<Account | null> {
    return findAccount(this.dataSource, accountId);
  }

  async create(input: CreateAccountInput): Promise<Account> {
    const kind = input.kind ?? 'customer';
    const status = input.status ?? 'active';
    if (!input.name || input.name.trim() === '') throw new AccountInputError('name is required');
    if (!ACCOUNT_KINDS.includes(kind)) throw new AccountInputError(`kind must be one of ${ACCOUNT_KINDS.join(', ')}`);
    if (!ACCOUNT_STATUSES.includes(status)) {
      throw new AccountInputError(`status must be one of ${ACCOUNT_STATUSES.join(', ')}`);
    }
    return insertAccount(this.dataSource, {
      id: newId(),
      name: input.name.trim(),
      kind,
      status,
      subscriptionPlan: input.subscriptionPlan ?? 'standard',
      subscriptionValidUntil: null,
      contactEmail: input.contactEmail ?? null,
    });
  }
}
