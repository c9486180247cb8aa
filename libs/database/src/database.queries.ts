import { defineQueries } from './sql/query';

/** Statements about the database itself, owning no table. */
export const DATABASE_QUERIES = defineQueries({
  owner: 'database',
  tables: [],
  platform: {
    ping: `SELECT 1`,
  },
});
