import { defineQueries } from '@app/database/sql';

/**
 * Accounts are read and written through their TypeORM entity (accounts.repository.ts); the
 * hand-written statements are the platform's own.
 */
export const ACCOUNT_QUERIES = defineQueries({
  owner: 'accounts',
  tables: ['accounts'],
  platform: {
    /** The demo seed: fixed ids, created once. */
    seedDemoAccount: `
      INSERT INTO accounts (id, name, kind, status, subscription_plan, legal_name, contact_email, country)
      VALUES ($1, $2, $3, $4, 'enterprise', $2 || ' A.S.', 'ops@' || lower(replace($2, ' ', '-')) || '.example', 'TR')
      ON CONFLICT (id) DO NOTHING`,
  },
});
