import { connect, type ChannelModel } from 'amqplib';

export interface BrokerLogger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

/** One broker URL, or the URLs of every node of one cluster (AMQP_URL as a list). */
export type BrokerAddress = string | readonly string[];

export interface BrokerConnectionOptions {
  /** Several URLs: the nodes of one cluster, tried in turn (see BrokerConnection). */
  url: BrokerAddress;
  /** Shown in the RabbitMQ management UI. */
  name: string;
  /** Declares topology and opens channels; a failure closes the connection and retries. */
  setup(connection: ChannelModel): Promise<void>;
  /** Called when a connection that completed setup is lost (channels are gone with it). */
  onDisconnect?(): void;
  logger?: BrokerLogger;
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** Longest wait for a node to accept a connection (a host that vanished never refuses): then the next is tried. */
  connectTimeoutMs?: number;
  /** Longest wait for the broker to acknowledge a close (a blocked broker may never): then the socket is destroyed. */
  closeTimeoutMs?: number;
}

/** Thrown by callers that need the broker while it is down. */
export class BrokerUnavailableError extends Error {
  constructor() {
    super('RabbitMQ is not connected');
  }
}

/**
 * One AMQP connection that keeps itself up: connects in the background, reconnects with capped
 * exponential backoff (full jitter) after any loss, and runs `setup` on each new connection.
 *
 * With several URLs (the nodes of a cluster) each attempt goes to the next node in turn: after a
 * lost connection the first attempt already goes to another node than the one just lost, and a
 * node that refuses or does not answer within `connectTimeoutMs` costs one short backoff step, so
 * a surviving node is reached within a second or so. The connection stays on the node it reached
 * (no move back when the lost node returns).
 */
export class BrokerConnection {
  private readonly urls: readonly string[];
  /** The URL the next attempt uses. */
  private next = 0;
  private model: ChannelModel | null = null;
  private stopped = true;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private waiters: Array<() => void> = [];

  constructor(private readonly options: BrokerConnectionOptions) {
    this.urls = brokerUrls(options.url);
  }

  get connected(): boolean {
    return this.model !== null;
  }

  /** The live connection (tests close it to simulate a broker failure). */
  get current(): ChannelModel | null {
    return this.model;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  /** Resolves once connected; rejects after `timeoutMs` (`null`: waits as long as it takes). */
  waitUntilConnected(timeoutMs: number | null = 10_000): Promise<void> {
    if (this.model) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer =
        timeoutMs === null
          ? undefined
          : setTimeout(() => {
              this.waiters = this.waiters.filter((w) => w !== done);
              reject(new BrokerUnavailableError());
            }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const model = this.model;
    this.model = null;
    if (model) await this.close(model);
  }

  /**
   * Drops the current connection and connects again: for a caller that cannot trust its channel
   * any more (publishes whose confirms never came). Never waits longer than `closeTimeoutMs`.
   */
  async reset(): Promise<void> {
    const model = this.model;
    if (!model) return;
    this.lost(model);
    // No polite close: the broker is not reading. A reset (RST) also makes it discard what it has
    // not read yet, so the unconfirmed publishes are not routed later behind the caller's back.
    abort(model);
  }

  /** Closes politely, or destroys the socket when the broker does not answer the close in time. */
  private async close(model: ChannelModel): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.closeTimeoutMs ?? 2000);
    });
    const outcome = await Promise.race([model.close().then(() => 'closed' as const, () => 'closed' as const), timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') abort(model);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    let model: ChannelModel | null = null;
    let closed = false;
    const url = this.urls[this.next];
    // Whatever happens to this connection, the next attempt goes to the next node.
    this.next = (this.next + 1) % this.urls.length;
    try {
      // noDelay: amqplib turns Nagle's algorithm on unless told otherwise, so a small frame (a publish,
      // an ack) written while an earlier one is unacknowledged waits for the peer's (delayed) ACK.
      model = await connect(url, { clientProperties: { connection_name: this.options.name }, timeout: this.options.connectTimeoutMs ?? 5000, noDelay: true });
      model.on('error', () => undefined); // 'close' follows and drives the reconnect
      model.on('close', () => {
        closed = true;
        this.lost(model as ChannelModel);
      });
      await this.options.setup(model);
      // Lost after setup's last step succeeded but before it returned (e.g. the broker's close frame
      // read together with the last reply): `lost` ignored it, since this was not yet the current
      // connection. Keeping it would leave a dead connection "connected" and never reconnect.
      if (closed) {
        this.options.onDisconnect?.();
        throw new Error('connection lost during setup');
      }
    } catch (error) {
      if (model && !closed) await model.close().catch(() => undefined);
      this.options.logger?.warn({ node: brokerNode(url), error: error instanceof Error ? error.message : String(error) }, 'RabbitMQ connection failed');
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) {
      await model.close().catch(() => undefined);
      return;
    }
    this.model = model;
    this.failures = 0;
    this.options.logger?.info({ connection: this.options.name, node: brokerNode(url) }, 'RabbitMQ connected');
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private lost(model: ChannelModel): void {
    if (this.model !== model) return;
    this.model = null;
    this.options.onDisconnect?.();
    if (this.stopped) return;
    this.options.logger?.warn({ connection: this.options.name }, 'RabbitMQ connection lost; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    this.failures += 1;
    const ceiling = Math.min(this.options.maxDelayMs ?? 15_000, (this.options.initialDelayMs ?? 200) * 2 ** Math.min(this.failures - 1, 10));
    const delay = Math.max(50, Math.random() * ceiling);
    this.retryTimer = setTimeout(() => void this.connect(), delay);
    this.retryTimer.unref();
  }
}

/** The URLs of a BrokerAddress (at least one). */
export function brokerUrls(address: BrokerAddress): readonly string[] {
  const urls = typeof address === 'string' ? [address] : address;
  if (urls.length === 0) throw new Error('BrokerConnection needs at least one URL');
  return urls;
}

/** host:port of a broker URL, for logs (never the credentials or the virtual host). */
export function brokerNode(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'amqps:' ? 5671 : 5672)}`;
  } catch {
    return '(unparsable URL)';
  }
}

/** Drops the connection's socket with a TCP reset, whatever the broker is doing. */
function abort(model: ChannelModel): void {
  const stream = (model as unknown as { connection?: { stream?: { resetAndDestroy?(): void; destroy(): void } } }).connection?.stream;
  if (!stream) return;
  if (typeof stream.resetAndDestroy === 'function') stream.resetAndDestroy();
  else stream.destroy();
}
