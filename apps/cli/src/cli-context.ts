import { type AppConfig, loadConfig } from '@app/config';
import { createDataSource, runMigrationsLocked } from '@app/database';
import type { DataSource } from 'typeorm';

/** Thrown for bad arguments or refused operations: printed as one line, exit code 2. */
export class CliError extends Error {}

export interface CliContext {
  config: AppConfig;
  dataSource: DataSource;
}

/** Opens the database (migrating it first, under the advisory lock) for the duration of one command. */
export async function withContext<T>(run: (context: CliContext) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Operator commands (migrations, demo seeding) may run long statements: only waits are bounded.
  // The migrations' session lock needs a direct connection (DATABASE_DIRECT_URL), not a transaction pooler.
  const dataSource = createDataSource(config.databaseDirectUrl, 3, { ...config.databaseTimeouts, statementTimeoutMs: 0 });
  try {
    await dataSource.initialize();
  } catch (error) {
    const hint = process.env.DATABASE_URL
      ? 'check DATABASE_URL'
      : 'DATABASE_URL is unset, so the embedded database of `npm start` is used: start it with `npm start`, or set DATABASE_URL';
    throw new CliError(`cannot connect to PostgreSQL (${hint}): ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    await runMigrationsLocked(dataSource);
    return await run({ config, dataSource });
  } finally {
    await dataSource.destroy();
  }
}

/** `--json` prints the machine-readable document; otherwise a short human summary. */
export function output(json: boolean, value: unknown, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human}\n`);
}

export function list(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}
