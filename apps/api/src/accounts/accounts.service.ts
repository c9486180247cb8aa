import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Account } from '@app/database';
import { findAccount, listAccountsAmong, updateAccount } from '@app/domain';
import { NotFoundError } from '../common/api-error';
import type { PageRequest } from '../common/paginator';
import type { UpdateAccountDto } from './dto/account.dto';
import type { AccountId } from '@app/vocabulary';

const COLUMN_BY_FIELD: Record<keyof UpdateAccountDto, keyof Account> = {
  name: 'name',
  legal_name: 'legalName',
  tax_id: 'taxId',
  registration_number: 'registrationNumber',
  contact_name: 'contactName',
  contact_email: 'contactEmail',
  contact_phone: 'contactPhone',
  website: 'website',
  address_line1: 'addressLine1',
  address_line2: 'addressLine2',
  city: 'city',
  postal_code: 'postalCode',
  country: 'country',
  timezone: 'timezone',
};

/**
 * Accounts visible to a credential are exactly its usable allow-list (active customer accounts),
 * which the token guard loads per request: every query here is bounded by those ids.
 */
@Injectable()
export class AccountsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async list(allowed: readonly string[], page: PageRequest): Promise<Account[]> {
    if (allowed.length === 0) return [];
    const after = page.after?.[0];
    return listAccountsAmong(this.dataSource, allowed, typeof after === 'string' ? after : null, page.limit + 1);
  }

  async get(allowed: readonly string[], accountId: AccountId): Promise<Account> {
    const account = allowed.includes(accountId) ? await findAccount(this.dataSource, accountId) : null;
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  async update(allowed: readonly string[], accountId: AccountId, changes: UpdateAccountDto): Promise<Account> {
    const account = await this.get(allowed, accountId);
    const patch: Partial<Account> = {};
    for (const [field, column] of Object.entries(COLUMN_BY_FIELD) as Array<[keyof UpdateAccountDto, keyof Account]>) {
      if (changes[field] !== undefined) (patch as Record<string, unknown>)[column] = changes[field];
    }
    if (Object.keys(patch).length > 0) await updateAccount(this.dataSource, account.id, patch);
    return this.get(allowed, accountId);
  }
}

