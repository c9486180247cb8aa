import { Client } from 'pg';

export interface ListenerLogger {
  warn(object: Record<string, unknown>, message: string): void;
}

/**
 * A dedicated connection that LISTENs on one channel and calls `onNotify` for each NOTIFY, and
 * once after every (re)connect since notifications sent while disconnected are lost. Reconnects
 * with capped exponential backoff; callers keep a poll as the safety net.
 */
export class PgListener {
  private client: Client | null = null;
  private stopped = true;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    /** Called with the NOTIFY's payload; with none right after (re)connecting, as anything may have been missed meanwhile. */
    private readonly onNotify: (payload?: string) => void,
    private readonly logger?: ListenerLogger,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid LISTEN channel name: ${channel}`);
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.databaseUrl, application_name: `coldchain-listen-${this.channel}` });
    let dropped = false;
    const drop = (error?: Error): void => {
      if (dropped) return;
      dropped = true;
      if (this.client === client) this.client = null;
      void client.end().catch(() => undefined);
      if (!this.stopped) {
        this.logger?.warn({ channel: this.channel, error: error?.message }, 'LISTEN connection lost; reconnecting');
        this.scheduleReconnect();
      }
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (message) => this.onNotify(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      drop(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.failures = 0;
    this.onNotify();
  }

  private scheduleReconnect(): void {
    this.failures += 1;
    const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }
}
