import { defineQueries } from '@app/database/sql';

/** The columns of an account, named as the Account entity's properties. */
const ACCOUNT_COLUMNS = `id, name, kind, status, subscription_plan AS "subscriptionPlan", subscription_valid_until AS "subscriptionValidUntil",
  legal_name AS "legalName", tax_id AS "taxId", registration_number AS "registrationNumber", contact_name AS "contactName",
  contact_email AS "contactEmail", contact_phone AS "contactPhone", website, address_line1 AS "addressLine1",
  address_line2 AS "addressLine2", city, postal_code AS "postalCode", country, timezone, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The profile columns a customer may change (the public API's account fields, by their column names). */
export const ACCOUNT_PROFILE_COLUMNS = [
  'name', 'legal_name', 'tax_id', 'registration_number', 'contact_name', 'contact_email', 'contact_phone',
  'website', 'address_line1', 'address_line2', 'city', 'postal_code', 'country', 'timezone',
] as const;

/**
 * Accounts are the tenants themselves (no account_id): every statement is the platform's; the
 * api bounds its reads by the credential's allow-list of ids.
 */
export const ACCOUNT_QUERIES = defineQueries({
  owner: 'accounts',
  tables: ['accounts'],
  platform: {
    // Of the given ids, those after $2 (keyset; null: from the start) in id order, at most $3.
    listAmong: `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ANY($1::uuid[]) AND ($2::uuid IS NULL OR id > $2::uuid) ORDER BY id LIMIT $3`,
    findByIds: `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ANY($1::uuid[])`,
    find: `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`,
    // $2: the changed profile columns as a JSON object (a key present with null clears the column).
    updateProfile: `
      UPDATE accounts
         SET ${ACCOUNT_PROFILE_COLUMNS.map((column) => `${column} = CASE WHEN $2::jsonb ? '${column}' THEN $2::jsonb ->> '${column}' ELSE ${column} END`).join(',\n             ')},
             updated_at = now()
       WHERE id = $1`,
    insert: `
      INSERT INTO accounts (id, name, kind, status, subscription_plan, subscription_valid_until, contact_email)
      VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${ACCOUNT_COLUMNS}`,
  },
});
