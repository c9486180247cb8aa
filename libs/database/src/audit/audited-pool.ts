import pg from 'pg';
import { currentAuditSetting } from './audit-context';

type ConnectCallback = (error: Error | undefined, client: pg.PoolClient | undefined, release: (error?: Error | boolean) => void) => void;

/**
 * Key of the pool options (TypeORM's `extra`) that says whether a session setting stays with the
 * connection's statements: false behind a transaction pooler, like prepared statements.
 */
export const AUDIT_CONTEXT_OPTION = 'coldchainAuditContext';

/** The `audit.context` value a pooled connection was last given. */
const CARRIED = Symbol('audit.context');
type Carrying = pg.PoolClient & { [CARRIED]?: string };

/**
 * A pg pool whose connections carry the caller's audit context (see AuditContext) in the
 * session setting `audit.context`, which the audit trigger reads. Every statement of the service
 * — `sql.*` on the pool, TypeORM transactions and repositories — checks a connection out through
 * `connect`, so this is the one place the context reaches PostgreSQL.
 *
 * The context is taken when `connect` is called (the caller's async context, not the one that
 * later hands the connection over) and set before the connection is handed out: queueing it
 * beside the caller's first statement is what pg 8 warns about ("Calling client.query() when the
 * client is already executing a query") and pg 9 refuses. A connection whose setting is already
 * right (most work of the dispatcher and the ingestion, which carry none) costs nothing more; one
 * that needs it waits one round trip. A connection whose setting fails is destroyed, and the
 * caller gets the error as it would from a failed checkout.
 */
export class AuditedPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    // Behind a transaction pooler a session setting would reach another client's statements: the
    // context is not sent, and the records say `system` (see AUDIT_CONTEXT_OPTION).
    if ((this.options as unknown as Record<string, unknown>)[AUDIT_CONTEXT_OPTION] === false) return callback ? super.connect(callback) : super.connect();
    const setting = currentAuditSetting();
    const checkout = super.connect().then(async (client: Carrying) => {
      if ((client[CARRIED] ?? '') === setting) return client;
      // A checked-out connection has no 'error' listener of the pool's, and the caller's comes only
      // once it is handed over. A server that ends the session right after answering (its FATAL in
      // the same read as the answer) makes pg emit 'error' before this function resumes: held
      // here, it fails the checkout instead of crashing the process as an unhandled event.
      let died: Error | undefined;
      const onError = (error: Error): void => {
        died ??= error;
      };
      client.on('error', onError);
      try {
        // Named: it runs up to twice per request, so it is parsed once per connection instead. The
        // context is sent only where prepared statements are (AUDIT_CONTEXT_OPTION follows them).
        await client.query({ name: 'audit.set-context', text: `SELECT set_config('audit.context', $1, false)`, values: [setting] });
        if (died) throw died;
      } catch (error) {
        client.release(error instanceof Error ? error : true);
        throw error;
      } finally {
        client.removeListener('error', onError);
      }
      client[CARRIED] = setting;
      return client;
    });
    if (!callback) return checkout;
    checkout.then(
      (client) => callback(undefined, client, (error) => client.release(error)),
      (error: Error) => callback(error, undefined, () => undefined),
    );
  }
}

/** The `pg` module as TypeORM loads it (`driver` option), with the audited pool. */
export const auditedPgDriver: typeof pg = Object.assign(Object.create(pg) as typeof pg, { Pool: AuditedPool });
