import { EventEmitter } from 'node:events';
import { AuditedPool } from './audited-pool';
import { runWithAuditContext } from './audit-context';

/**
 * A pg client on paper. With `fatalAfterSetting`, the server's FATAL (e.g. "terminating connection
 * due to administrator command" when the primary stops) arrives in the same TCP chunk as the
 * answer to `set_config`: pg completes the query, then, with no query active, emits 'error' on the
 * client — before the awaiting code has resumed.
 */
class PaperClient extends EventEmitter {
  static fatalAfterSetting = false;
  /** Every statement sent, as pg received it. */
  static sent: Array<string | { name?: string; text: string; values?: unknown[] }> = [];
  /** pg-pool puts a released client back only while it is queryable. */
  _queryable = true;
  connect(callback?: (error?: Error) => void): Promise<void> | void {
    if (callback) return void setImmediate(() => callback());
    return Promise.resolve();
  }
  /** As pg: a statement's text, or its config (`{ name, text, values }`: a named prepared statement). */
  query(statement: string | { text: string }): Promise<{ rows: unknown[]; rowCount: number }> {
    const text = typeof statement === 'string' ? statement : statement.text;
    PaperClient.sent.push(statement);
    return new Promise((resolve) => {
      setImmediate(() => {
        resolve({ rows: [], rowCount: 0 });
        if (PaperClient.fatalAfterSetting && text.includes('set_config')) {
          this._queryable = false;
          this.emit('error', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
        }
      });
    });
  }
  end(callback?: () => void): Promise<void> | void {
    if (callback) return void setImmediate(callback);
    return Promise.resolve();
  }
}

describe('AuditedPool', () => {
  afterEach(() => {
    PaperClient.fatalAfterSetting = false;
    PaperClient.sent = [];
  });
  const actor = { actorType: 'cli' as const, actorId: 'spec', action: 'probe' };

  it('hands out a connection that died while its audit context was being set as a failed checkout, not an unhandled error event', async () => {
    const pool = new AuditedPool({ Client: PaperClient as never, max: 1 });
    PaperClient.fatalAfterSetting = true;
    await expect(runWithAuditContext(actor, () => pool.connect())).rejects.toMatchObject({ code: '57P01' });
    // The dead connection was not put back: the next checkout gets a new one, which works.
    PaperClient.fatalAfterSetting = false;
    const client = await runWithAuditContext({ ...actor, actorId: 'next' }, () => pool.connect());
    client.release();
    expect(pool.totalCount).toBe(1);
    await pool.end();
  });

  it('sets a changed context as one named statement (parsed once per connection), and nothing when it is unchanged', async () => {
    const pool = new AuditedPool({ Client: PaperClient as never, max: 1 });
    for (const actorId of ['first', 'first', 'second']) (await runWithAuditContext({ ...actor, actorId }, () => pool.connect())).release();
    expect(PaperClient.sent).toEqual(
      ['first', 'second'].map((actorId) => ({
        name: 'audit.set-context',
        text: `SELECT set_config('audit.context', $1, false)`,
        values: [expect.stringContaining(`"actor_id":"${actorId}"`)],
      })),
    );
    await pool.end();
  });
});
