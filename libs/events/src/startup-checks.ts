import { connect } from 'amqplib';
import { type AppConfig, redactUrl } from '@app/config';
import { checkDatabaseAtStart, migrateDatabase, type StartupProblem } from '@app/database';

export type { StartupProblem } from '@app/database';

/**
 * Opens and closes one AMQP connection within `timeoutMs`: the broker answers and accepts the
 * credentials. With several URLs (the nodes of a cluster) one node that accepts is enough; when
 * none does, each node's reason is reported.
 */
export async function checkBrokerAtStart(urls: string | readonly string[], timeoutMs: number): Promise<StartupProblem[]> {
  const nodes = typeof urls === 'string' ? [urls] : urls;
  const problems = await Promise.all(nodes.map((url) => checkBrokerNode(url, timeoutMs)));
  return problems.some((found) => found.length === 0) ? [] : problems.flat();
}

async function checkBrokerNode(url: string, timeoutMs: number): Promise<StartupProblem[]> {
  let model: Awaited<ReturnType<typeof connect>> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  try {
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        late = true;
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    const opening = connect(url, { timeout: timeoutMs });
    // A connection that opens after the deadline is closed at once.
    opening.then((opened) => (late ? opened.close().catch(() => undefined) : undefined)).catch(() => undefined);
    model = await Promise.race([opening, deadline]);
    model.on('error', () => undefined);
    return [];
  } catch (error) {
    const text = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return [{ kind: 'unavailable', message: `RabbitMQ at ${redactUrl(url)} (AMQP_URL) did not accept a connection within ${timeoutMs} ms: ${text}; check AMQP_URL (host, user, password, virtual host) and that the broker is up` }];
  } finally {
    clearTimeout(timer);
    await model?.close().catch(() => undefined);
  }
}

function databaseCheck(config: AppConfig, setting: string, url: string, schema: boolean, session?: AppConfig['databaseSession']): Promise<StartupProblem[]> {
  return checkDatabaseAtStart({ setting, url, shownUrl: redactUrl(url), timeoutMs: config.startupCheckTimeoutMs, timeouts: config.databaseTimeouts, session, schema });
}

/**
 * What `NODE_ENV=production` checks before an app migrates and starts, beyond the configuration
 * itself (loadConfig): PostgreSQL answers on DATABASE_URL as the app will use it (and on
 * DATABASE_DIRECT_URL when that is another address) and RabbitMQ accepts a connection; each within
 * STARTUP_CHECK_TIMEOUT_MS, all at once, every problem reported.
 */
export async function serviceProblems(config: AppConfig): Promise<StartupProblem[]> {
  const checks = [databaseCheck(config, 'DATABASE_URL', config.databaseUrl, false, config.databaseSession), checkBrokerAtStart(config.amqpUrls, config.startupCheckTimeoutMs)];
  if (config.databaseDirectUrl !== config.databaseUrl) checks.push(databaseCheck(config, 'DATABASE_DIRECT_URL', config.databaseDirectUrl, false));
  return (await Promise.all(checks)).flat();
}

/** After the migration step: the migrations recorded as applied are exactly those this build ships. */
export function schemaProblems(config: AppConfig): Promise<StartupProblem[]> {
  return databaseCheck(config, 'DATABASE_URL', config.databaseUrl, true, config.databaseSession);
}

/**
 * Prints one line per problem (`<app>: refusing to start: …`) and exits: 78 (EX_CONFIG) when any
 * of them needs a change, 69 (EX_UNAVAILABLE) when a service only did not answer. No problem: returns.
 */
export function exitOnStartupProblems(app: string, problems: StartupProblem[]): void {
  if (problems.length === 0) return;
  process.stderr.write(problems.map((problem) => `${app}: refusing to start: ${problem.message}\n`).join(''));
  process.exit(problems.some((problem) => problem.kind === 'config') ? 78 : 69);
}

/**
 * The database part of an app's start: in production the service checks, then the migration step
 * (MIGRATE_ON_START, over DATABASE_DIRECT_URL), then in production the schema check. Exits on a
 * problem (exitOnStartupProblems); a migration failure throws.
 */
export async function prepareDatabaseAtStart(app: string, config: AppConfig, logger: { info(fields: Record<string, unknown>, message: string): void }): Promise<void> {
  const production = config.nodeEnv === 'production';
  if (production) exitOnStartupProblems(app, await serviceProblems(config));
  if (config.migrateOnStart) {
    const applied = await migrateDatabase(config.databaseDirectUrl, config.databaseTimeouts);
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
  }
  if (production) exitOnStartupProblems(app, await schemaProblems(config));
}
