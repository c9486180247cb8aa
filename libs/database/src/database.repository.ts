import { DATABASE_QUERIES as Q } from './database.queries';
import { sql, type Db } from './sql';

/** Readiness: the pool hands out a connection and PostgreSQL answers. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql.run(db, Q.ping);
}
