import type { DataSource } from 'typeorm';

/**
 * The account a run that delivers webhooks ends with (issue 26): per endpoint, every event
 * committed for it is delivered, permanently failed, cancelled (or not sent: the endpoint was
 * disabled, `skipped`) or still pending — nothing else —
 * and what the receiver logged agrees with what the database says was delivered.
 */
export interface EndpointAccount {
  endpoint: string;
  /** Events committed (outbox_events) for the endpoint's account, of a type it subscribes to, since it was created. */
  committed: number;
  /** webhook_deliveries of those events (origin 'event') per status. */
  delivered: number;
  failed: number;
  cancelled: number;
  pending: number;
  /** Distinct event ids the receiver logged for this endpoint (its host, port and path). */
  received: number;
}

/** One line per endpoint whose account does not balance; empty when every one does. */
export function ledgerDifferences(accounts: readonly EndpointAccount[]): string[] {
  const differences: string[] = [];
  for (const a of accounts) {
    const closedOrOwed = a.delivered + a.failed + a.cancelled + a.pending;
    if (a.committed !== closedOrOwed) {
      const gap = a.committed - closedOrOwed;
      differences.push(
        `endpoint ${a.endpoint}: ${a.committed} events committed ≠ ${a.delivered} delivered + ${a.failed} failed + ${a.cancelled} cancelled + ${a.pending} pending (${gap > 0 ? `${gap} missing` : `${-gap} too many`})`,
      );
    }
    if (a.received !== a.delivered) {
      differences.push(`endpoint ${a.endpoint}: the receiver logged ${a.received} events, the database says ${a.delivered} delivered (${a.received - a.delivered > 0 ? '+' : ''}${a.received - a.delivered})`);
    }
  }
  return differences;
}

/** Totals over endpoints, for the log line. */
export function ledgerTotals(accounts: readonly EndpointAccount[]): Omit<EndpointAccount, 'endpoint'> {
  const sum = (key: keyof Omit<EndpointAccount, 'endpoint'>): number => accounts.reduce((n, a) => n + a[key], 0);
  return { committed: sum('committed'), delivered: sum('delivered'), failed: sum('failed'), cancelled: sum('cancelled'), pending: sum('pending'), received: sum('received') };
}

export function describeLedger(accounts: readonly EndpointAccount[]): string {
  const t = ledgerTotals(accounts);
  return `${accounts.length} endpoints: ${t.committed} owed (events × subscribed endpoints) = ${t.delivered} delivered + ${t.failed} failed + ${t.cancelled} cancelled + ${t.pending} pending; receiver logged ${t.received}`;
}

/** The key the receiver logs a request under, from an endpoint's URL: host:port/path. */
export function receiverKey(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port}${u.pathname}`;
}

/**
 * The database's side of the ledger for these endpoints (one statement), joined with the receiver's
 * log (distinct event ids per receiverKey).
 */
export async function readLedger(db: DataSource, endpoints: ReadonlyArray<{ id: string; url: string }>, received: ReadonlyMap<string, number>): Promise<EndpointAccount[]> {
  const rows = (await db.query(
    `SELECT e.id,
            (SELECT count(*)::int FROM outbox_events o
              WHERE o.account_id = e.account_id AND o.event_type = ANY(e.events) AND o.created_at >= e.created_at) AS committed,
            count(d.id) FILTER (WHERE d.status = 'succeeded')::int AS delivered,
            count(d.id) FILTER (WHERE d.status = 'failed')::int AS failed,
            count(d.id) FILTER (WHERE d.status IN ('cancelled', 'skipped'))::int AS cancelled,
            count(d.id) FILTER (WHERE d.status = 'pending')::int AS pending
       FROM webhook_endpoints e
       LEFT JOIN webhook_deliveries d ON d.endpoint_id = e.id AND d.origin = 'event'
      WHERE e.id = ANY($1::uuid[])
      GROUP BY e.id`,
    [endpoints.map((e) => e.id)],
  )) as Array<{ id: string; committed: number; delivered: number; failed: number; cancelled: number; pending: number }>;
  const byId = new Map(rows.map((r) => [r.id, r]));
  return endpoints.map((e) => {
    const row = byId.get(e.id);
    const base = row ?? { committed: 0, delivered: 0, failed: 0, cancelled: 0, pending: 0 };
    return {
      endpoint: e.url,
      committed: base.committed,
      delivered: base.delivered,
      failed: base.failed,
      cancelled: base.cancelled,
      pending: base.pending,
      received: received.get(receiverKey(e.url)) ?? 0,
    };
  });
}

export class LedgerMismatch extends Error {}

/**
 * Reads and checks the ledger; throws LedgerMismatch listing every difference (the run fails),
 * otherwise returns the one-line summary.
 */
export async function checkLedger(db: DataSource, endpoints: ReadonlyArray<{ id: string; url: string }>, received: ReadonlyMap<string, number>, label: string): Promise<string> {
  const accounts = await readLedger(db, endpoints, received);
  const differences = ledgerDifferences(accounts);
  if (differences.length > 0) {
    const shown = differences.slice(0, 20);
    throw new LedgerMismatch(
      `${label}: the ledger does not balance (${describeLedger(accounts)}):\n  ${shown.join('\n  ')}${differences.length > shown.length ? `\n  … and ${differences.length - shown.length} more` : ''}`,
    );
  }
  return `${label}: ledger balances: ${describeLedger(accounts)}`;
}
