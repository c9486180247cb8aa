import type { DataSource } from 'typeorm';
import type { Account } from '@app/database';
import { NotFoundError } from '../errors/api-error';
import { findAccount, listAccountsAmong, updateAccount } from './accounts.repository';
import type { AccountId, KeysetPage } from '@app/vocabulary';

/** The customer-managed contact and legal profile fields (only the fields sent change; null clears). */
export interface AccountProfileChanges {
  name?: string;
  legal_name?: string | null;
  tax_id?: string | null;
  registration_number?: string | null;
  contact_name?: string | null;
  contact_email?: string | null;
  contact_phone?: string | null;
  website?: string | null;
  address_line1?: string | null;
  address_line2?: string | null;
  city?: string | null;
  postal_code?: string | null;
  country?: string | null;
  timezone?: string | null;
}

const COLUMN_BY_FIELD: Record<keyof AccountProfileChanges, keyof Account> = {
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
export class AccountsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(allowed: readonly string[], page: KeysetPage<string>): Promise<Account[]> {
    if (allowed.length === 0) return [];
    return listAccountsAmong(this.dataSource, allowed, page.after, page.limit + 1);
  }

  async get(allowed: readonly string[], accountId: AccountId): Promise<Account> {
    const account = allowed.includes(accountId) ? await findAccount(this.dataSource, accountId) : null;
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  async update(allowed: readonly string[], accountId: AccountId, changes: AccountProfileChanges): Promise<Account> {
    const account = await this.get(allowed, accountId);
    const patch: Partial<Account> = {};
    for (const [field, column] of Object.entries(COLUMN_BY_FIELD) as Array<[keyof AccountProfileChanges, keyof Account]>) {
      if (changes[field] !== undefined) (patch as Record<string, unknown>)[column] = changes[field];
    }
    if (Object.keys(patch).length > 0) await updateAccount(this.dataSource, account.id, patch);
    return this.get(allowed, accountId);
  }
}
