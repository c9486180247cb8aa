import { appliedMigrationNames, pingDatabase } from './database.repository';
import { createDataSource, type DatabaseTimeouts, type SessionFeatures } from './data-source';
import { MIGRATIONS } from './migrations';

/** What `NODE_ENV=production` refuses at start: one sentence each, with what to do. */
export interface StartupProblem {
  /** `unavailable`: a service that did not answer (worth a restart); `config`: wrong until someone changes something. */
  kind: 'config' | 'unavailable';
  message: string;
}

/** The migration names this build ships (what a fully migrated database has recorded). */
export function shippedMigrationNames(): string[] {
  return MIGRATIONS.map((migration) => (new migration() as { name?: string }).name ?? migration.name);
}

function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] || (error as { code?: string })?.code || 'no answer';
}

/** Settles with `run`'s value, or rejects after `ms` (the work it started is left to end on its own). */
async function within<T>(ms: number, run: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface DatabaseCheck {
  /** The setting the URL came from, named in the message (DATABASE_URL, DATABASE_DIRECT_URL). */
  setting: string;
  url: string;
  /** The URL without its credentials, for the message. */
  shownUrl: string;
  timeoutMs: number;
  timeouts: DatabaseTimeouts;
  session?: SessionFeatures;
  /** Also compare the applied migrations with the shipped ones. */
  schema: boolean;
}

/**
 * Connects as the app will (same pool settings), runs one statement and, with `schema`, compares
 * the migrations recorded as applied with those this build ships, all within `timeoutMs`.
 */
export async function checkDatabaseAtStart(check: DatabaseCheck): Promise<StartupProblem[]> {
  const dataSource = createDataSource(check.url, 1, { ...check.timeouts, connectionTimeoutMs: check.timeoutMs }, check.session);
  try {
    const applied = await within<string[]>(
      check.timeoutMs,
      (async () => {
        await dataSource.initialize();
        await pingDatabase(dataSource);
        return check.schema ? appliedMigrationNames(dataSource) : [];
      })(),
    );
    if (!check.schema) return [];
    const shipped = shippedMigrationNames();
    const unknown = applied.filter((name) => !shipped.includes(name));
    const pending = shipped.filter((name) => !applied.includes(name));
    const problems: StartupProblem[] = [];
    if (unknown.length > 0) {
      problems.push({
        kind: 'config',
        message: `the database schema is newer than this build: it has migration ${unknown.join(', ')}, which this build does not ship; run the build that migrated it (or a newer one), or restore the database from before that upgrade`,
      });
    }
    if (pending.length > 0) {
      problems.push({
        kind: 'config',
        message: `the database schema is not migrated to this build: ${pending.length} migration(s) not applied (${pending.slice(-3).join(', ')}); run the migration step of this build against ${check.shownUrl}`,
      });
    }
    return problems;
  } catch (error) {
    return [
      {
        kind: 'unavailable',
        message: `PostgreSQL at ${check.shownUrl} (${check.setting}) did not answer within ${check.timeoutMs} ms: ${reason(error)}; check ${check.setting} and that the server is up`,
      },
    ];
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
  }
}
