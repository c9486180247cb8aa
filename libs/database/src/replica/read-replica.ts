import { processWide } from '../process-wide-storage';
import { Pool, type PoolConfig } from 'pg';
import { isConnectionFailure } from '../connection-failure';

/**
 * Reads that may lag run on a PostgreSQL streaming replica (DATABASE_REPLICA_URL), within a
 * bound on their staleness (DATABASE_REPLICA_MAX_LAG_MS). A statement opts in where it is declared
 * (the `replica` list of its query family); `sql` asks this router, per execution, which pool to use.
 *
 * Staleness is measured, not guessed from replay timestamps: every probe (a few per bound) samples
 * the primary's WAL insert position (with the time it was asked; see `walPosition`) and the replica's
 * replayed position. Once the replica has replayed past a sample, it holds every transaction the
 * primary had committed when that sample was taken: the replica is "fresh as of" the newest such
 * sample, and a read there is at most `now − freshAsOf` behind. An idle primary keeps that at about
 * one probe interval; paused or slow replay makes it grow until it passes the bound, and from then
 * on the statements run on the primary again until the replica catches up.
 *
 * Read-your-writes: a credential that wrote through this process reads from the replica only once
 * the replica is fresh as of the end of that write (a write in flight pins its reads to the
 * primary). Detail reads are not declared replica-eligible at all, so they see a write whichever
 * process served it.
 *
 * While the primary is unreachable nothing can be committed, so a replica that has replayed all
 * the WAL it received is as fresh as anything can be: lag-tolerant reads stay there, and
 * statements declared `failover` (the credential check) use it too instead of failing.
 */
export interface ReadReplicaOptions {
  /** Longest staleness a replica read may have (ms). */
  maxLagMs: number;
  /** How often both servers are sampled; default a quarter of the bound, at most 1 s. */
  probeIntervalMs?: number;
  /** pg pool settings of the replica pool (size, timeouts). */
  pool?: PoolConfig;
  /**
   * The two probes (database.repository's `walPosition` and `replayPosition`), passed in so that
   * the SQL helper, which asks this router, and the repository, which uses the SQL helper, make
   * no import circle.
   */
  positions: WalPositionProbes;
}

export interface WalPositionProbes {
  wal(pool: Pool): Promise<string>;
  replay(pool: Pool): Promise<{ recovery: boolean; replayed: string | null; received: string | null }>;
}

export type ReplicaState =
  | { usable: true; lagMs: number; primary: 'up' | 'down' }
  | { usable: false; reason: string; primary: 'up' | 'down' };

interface Sample {
  at: number;
  lsn: bigint;
}

/** Where one execution of a replica-eligible statement should run. */
export type ReadTarget = 'replica' | 'primary';

interface RoutingContext {
  /** The credential the request acts for, once authenticated. */
  subject?: string;
  /** Told the credential once it is known (the api uses it to mark a write in flight). */
  onIdentified?: (subject: string) => void;
  /** Every statement of this scope runs on the primary (see `onPrimary`). */
  primaryOnly?: boolean;
}

// One instance per process, not per module load (see processWide).
const context = processWide<RoutingContext>('coldchain.read-routing');

/** Runs `fn` (a request) with a routing context: `identifyReader` then names who it acts for. */
export function withReadRouting<T>(fn: () => T, onIdentified?: (subject: string) => void): T {
  return context.run({ onIdentified }, fn);
}

/** Names the credential the current request acts for (read-your-writes is per credential). */
export function identifyReader(subject: string): void {
  const store = context.getStore();
  if (!store || store.subject !== undefined) return;
  store.subject = subject;
  store.onIdentified?.(subject);
}

/** Runs `fn` with every statement on the primary (e.g. a second look when the replica lacked a row). */
export function onPrimary<T>(fn: () => Promise<T>): Promise<T> {
  return context.run({ ...context.getStore(), primaryOnly: true }, fn);
}

/** The credential of the current request, if the request has been authenticated. */
export function currentReader(): string | undefined {
  return context.getStore()?.subject;
}

/** "A/B" (pg_lsn as text) → a comparable number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** Writes remembered per credential at most; beyond it the oldest are forgotten (their reads are long since safe). */
const MAX_REMEMBERED_WRITERS = 50_000;
/** How long a statement that found the primary gone waits for a fresh probe to vouch for the replica. */
const FAILOVER_PROBE_MS = 1500;
/** Primary samples kept (a few bounds' worth). */
const MAX_SAMPLES = 512;

export class ReadReplica {
  readonly pool: Pool;
  readonly maxLagMs: number;
  readonly probeIntervalMs: number;
  private readonly samples: Sample[] = [];
  private primaryUp = true;
  private replicaError: string | null = 'not probed yet';
  private replayed: { lsn: bigint; caughtUp: boolean; at: number } | null = null;
  private freshAsOf = 0;
  /** Per credential: when its last write through this process ended (Infinity while one is in flight). */
  private readonly writes = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private closed = false;
  private readonly positions: WalPositionProbes;
  /** Statement executions per target since start (metrics, tests, the bench). */
  readonly routed = { replica: 0, primary: 0, fallback: 0 };

  constructor(
    replicaUrl: string,
    private readonly primary: Pool | (() => Pool | undefined),
    options: ReadReplicaOptions,
  ) {
    this.maxLagMs = options.maxLagMs;
    this.positions = options.positions;
    this.probeIntervalMs = options.probeIntervalMs ?? Math.max(20, Math.min(1000, Math.floor(options.maxLagMs / 4)));
    this.pool = new Pool({ connectionString: replicaUrl, application_name: 'coldchain-replica-reads', ...options.pool });
    // An idle replica connection the server ends (restart, failover) must not crash the process.
    this.pool.on('error', () => undefined);
  }

  /** Starts sampling; the first probe has run when this resolves. */
  async start(): Promise<void> {
    await this.probe();
    this.timer = setInterval(() => void this.probe(), this.probeIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.probing;
    await this.pool.end();
  }

  /** One probe of both servers (also called by tests to avoid waiting for the interval). */
  probe(): Promise<void> {
    this.probing ??= this.probeBoth().finally(() => (this.probing = null));
    return this.probing;
  }

  private primaryPool(): Pool | undefined {
    return typeof this.primary === 'function' ? this.primary() : this.primary;
  }

  private async probeBoth(): Promise<void> {
    if (this.closed) return;
    const asked = Date.now();
    const bound = Math.max(this.probeIntervalMs * 4, 1000);
    const [primary, replica] = await Promise.allSettled([
      withDeadline(this.primaryPool() ? this.positions.wal(this.primaryPool() as Pool) : Promise.reject(new Error('no primary pool')), bound),
      withDeadline(this.positions.replay(this.pool), bound),
    ]);
    if (primary.status === 'fulfilled') {
      this.primaryUp = true;
      this.samples.push({ at: asked, lsn: parseLsn(primary.value) });
      if (this.samples.length > MAX_SAMPLES) this.samples.splice(0, this.samples.length - MAX_SAMPLES);
    } else {
      this.primaryUp = false;
    }
    if (replica.status === 'rejected') {
      this.replicaError = `unreachable (${describe(replica.reason)})`;
      this.replayed = null;
    } else {
      const row = replica.value;
      if (!row.recovery || row.replayed === null) {
        this.replicaError = 'not a streaming replica (pg_is_in_recovery() is false)';
        this.replayed = null;
      } else {
        const lsn = parseLsn(row.replayed);
        this.replicaError = null;
        this.replayed = { lsn, caughtUp: row.received === null || lsn >= parseLsn(row.received), at: Date.now() };
      }
    }
    if (this.replayed) {
      // The newest primary sample the replica has replayed past.
      for (let i = this.samples.length - 1; i >= 0; i--) {
        if (this.samples[i].lsn <= this.replayed.lsn) {
          this.freshAsOf = Math.max(this.freshAsOf, this.samples[i].at);
          // Older samples can never matter again.
          if (i > 0) this.samples.splice(0, i);
          break;
        }
      }
    }
  }

  /** What readiness and the metrics report. */
  state(now = Date.now()): ReplicaState {
    const primary = this.primaryUp ? 'up' : 'down';
    if (this.replicaError !== null || !this.replayed) return { usable: false, reason: this.replicaError ?? 'not probed yet', primary };
    // A probe answer that is itself old says nothing about now.
    if (now - this.replayed.at > Math.max(this.probeIntervalMs * 4, 2000)) return { usable: false, reason: 'not answering probes', primary };
    if (!this.primaryUp) {
      return this.replayed.caughtUp
        ? { usable: true, lagMs: 0, primary }
        : { usable: false, reason: 'primary down and the replica has not replayed all it received', primary };
    }
    const lagMs = Math.max(0, now - this.freshAsOf);
    if (lagMs > this.maxLagMs) return { usable: false, reason: `lagging ${lagMs} ms behind the primary (bound ${this.maxLagMs} ms)`, primary };
    return { usable: true, lagMs, primary };
  }

  /**
   * A replica read failed: a connection-level failure takes the replica out of rotation until the
   * next probe answers (the read itself is retried on the primary by `sql`).
   */
  readFailed(error: unknown): void {
    this.routed.fallback += 1;
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || code.startsWith('08') || code.startsWith('57') || code === '53300') {
      this.replicaError = `a read failed (${describe(error)})`;
      this.replayed = null;
    }
  }

  /**
   * A `failover` (or lag-tolerant) statement could not reach the primary: until a probe says
   * otherwise, the primary counts as away. Answers whether the statement may now run on the replica.
   *
   * The last probe may predate the outage by up to an interval, and under write load it often saw
   * the replica a little behind what it had received (replay trails receipt by a moment). Such a
   * probe cannot vouch for the replica, so a fresh one decides: the primary refuses at once and the
   * replica, cut off, has replayed all it received within milliseconds. Concurrent callers share
   * that probe, and it is bounded, so a failover costs a request one round trip to the replica.
   */
  async primaryFailed(error: unknown): Promise<boolean> {
    if (!isConnectionFailure(error)) return false;
    this.primaryUp = false;
    if (this.targetForFailover() === 'replica') return true;
    const deadline = Date.now() + FAILOVER_PROBE_MS;
    // A probe already under way may have asked the primary before it went away: wait for it, then ask again.
    for (let fresh = 0; fresh < 2 && Date.now() < deadline; fresh++) {
      await withDeadline(this.probe(), Math.max(1, deadline - Date.now())).catch(() => undefined);
      if (this.targetForFailover() === 'replica') return true;
    }
    return false;
  }

  /** Whether the primary answered the last probe. */
  get primaryReachable(): boolean {
    return this.primaryUp;
  }

  /** Where a lag-tolerant read of the current request runs now. */
  targetForRead(now = Date.now()): ReadTarget {
    if (context.getStore()?.primaryOnly) return 'primary';
    const state = this.state(now);
    if (!state.usable) return 'primary';
    if (state.primary === 'down') return 'replica';
    const subject = currentReader();
    if (subject !== undefined) {
      if ((this.inFlight.get(subject) ?? 0) > 0) return 'primary';
      const wrote = this.writes.get(subject);
      if (wrote !== undefined && wrote > this.freshAsOf) return 'primary';
    }
    return 'replica';
  }

  /** Where a `failover` statement (primary, unless the primary is away) runs now. */
  targetForFailover(now = Date.now()): ReadTarget {
    if (this.primaryUp || context.getStore()?.primaryOnly) return 'primary';
    return this.state(now).usable ? 'replica' : 'primary';
  }

  /** A write request of `subject` starts (its reads go to the primary until the replica has it). */
  writeStarted(subject: string): void {
    this.inFlight.set(subject, (this.inFlight.get(subject) ?? 0) + 1);
  }

  /** ...and has ended (committed or not: either way the replica must be past this moment). */
  writeEnded(subject: string): void {
    const left = (this.inFlight.get(subject) ?? 1) - 1;
    if (left <= 0) this.inFlight.delete(subject);
    else this.inFlight.set(subject, left);
    this.writes.delete(subject);
    if (this.writes.size >= MAX_REMEMBERED_WRITERS) {
      // Forget the oldest (Map keeps insertion order); keep those the replica may still lack.
      for (const [key, at] of this.writes) {
        if (this.writes.size < MAX_REMEMBERED_WRITERS || at > this.freshAsOf) break;
        this.writes.delete(key);
      }
    }
    this.writes.set(subject, Date.now());
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Connection errors name hosts and ports; readiness details are on the ops port only, but keep them short.
  return message.split('\n')[0].slice(0, 200);
}

const REPLICAS = new WeakMap<object, ReadReplica>();

/** Lets `sql` route the replica-eligible statements run on `dataSource` (outside transactions). */
export function attachReadReplica(dataSource: object, replica: ReadReplica): void {
  REPLICAS.set(dataSource, replica);
}

export function detachReadReplica(dataSource: object): void {
  REPLICAS.delete(dataSource);
}

export function readReplicaOf(dataSource: object): ReadReplica | undefined {
  return REPLICAS.get(dataSource);
}
