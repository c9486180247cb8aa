import type { DataSource } from 'typeorm';
import type { Account } from '@app/database';
import { NotFoundError } from '../errors';
import { ACCOUNT_PROFILE_COLUMNS } from './accounts.queries';
import { findAccount, listAccountsAmong, updateAccountProfile, type AccountProfileColumn } from './accounts.repository';
import type { KeysetPage } from '@app/vocabulary';

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

  async get(allowed: readonly string[], accountId: string): Promise<Account> {
    const account = allowed.includes(accountId) ? await findAccount(this.dataSource, accountId) : null;
    if (!account) throw new NotFoundError('Account');
    return account;
  }

  async update(allowed: readonly string[], accountId: string, changes: AccountProfileChanges): Promise<Account> {
    const account = await this.get(allowed, accountId);
    const patch: Partial<Record<AccountProfileColumn, string | null>> = {};
    for (const column of ACCOUNT_PROFILE_COLUMNS) {
      if (changes[column] !== undefined) patch[column] = changes[column];
    }
    if (Object.keys(patch).length > 0) await updateAccountProfile(this.dataSource, account.id, patch);
    return this.get(allowed, accountId);
  }
}
