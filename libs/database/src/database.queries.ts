import { defineQueries } from './sql/query';

/**
 * Statements about the database itself, owning no table, and the one check that a tenant exists
 * (the webhooks and the devices families both ask it; the accounts family owns the table).
 */
export const DATABASE_QUERIES = defineQueries({
  owner: 'database',
  tables: [],
  // TypeORM's record of the applied migrations (it writes the table; the start-up check reads it).
  reads: ['migrations', 'accounts'],
  platform: {
    ping: `SELECT 1`,
    appliedMigrations: `SELECT name FROM migrations`,
    /** The read replica's probe of the primary: how far its WAL goes (ReadReplica). */
    walPosition: `SELECT pg_current_wal_lsn()::text AS lsn`,
    /** …and of the replica: whether it is one, what it has replayed and received. */
    replayPosition: `SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replayed, pg_last_wal_receive_lsn()::text AS received`,
    // accounts has no account_id: it is the tenant itself.
    accountExists: `SELECT 1 FROM accounts WHERE id = $1`,
  },
});
