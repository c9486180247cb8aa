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
    /**
     * The read replica's probe of the primary: the end of everything inserted into its WAL
     * (ReadReplica). The insert position, not the write position (`pg_current_wal_lsn()`): with
     * `synchronous_commit = off` a commit can be in the WAL buffers, not yet written, when its
     * request has answered, and a replica that has replayed the write position may still lack it.
     * An insert position at the start of a page points past that page's header, where the replay
     * position of an idle replica (the end of the last record) is the page boundary: the header
     * (24 bytes, 40 at the start of a segment) is taken off so that an idle replica counts as caught up.
     */
    walPosition: `SELECT (CASE
      WHEN (i - '0/0'::pg_lsn) % pg_size_bytes(current_setting('wal_segment_size')) = 40 THEN i - 40
      WHEN (i - '0/0'::pg_lsn) % current_setting('wal_block_size')::numeric = 24 THEN i - 24
      ELSE i END)::text AS lsn
    FROM pg_current_wal_insert_lsn() AS i`,
    /** …and of the replica: whether it is one, what it has replayed and received. */
    replayPosition: `SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replayed, pg_last_wal_receive_lsn()::text AS received`,
    // accounts has no account_id: it is the tenant itself.
    accountExists: `SELECT 1 FROM accounts WHERE id = $1`,
  },
});
