import { defineQueries } from './sql/query';

/** Statements about the database itself, owning no table. */
export const DATABASE_QUERIES = defineQueries({
  owner: 'database',
  tables: [],
  // TypeORM's record of the applied migrations (it writes the table; the start-up check reads it).
  reads: ['migrations'],
  platform: {
    ping: `SELECT 1`,
    appliedMigrations: `SELECT name FROM migrations`,
  },
});
