import type { AccountId } from '@app/vocabulary';

/**
 * Every SQL statement of the service is declared once, in the `*.queries.ts` file of the
 * repository that owns its tables, and is rendered into the committed `queries/<owner>.sql`
 * (`npm run queries:write`; a test fails when they drift), so a query change shows in review.
 *
 * Tenant statements take the caller's `AccountId` as `$1` and filter on it; platform
 * statements work across tenants (ingestion by device, the dispatcher, housekeeping, the
 * operator CLI) and say so in their declaration.
 */
export interface Query {
  readonly owner: string;
  readonly name: string;
  readonly text: string;
  readonly scope: 'tenant' | 'platform';
  /**
   * Run as a named prepared statement on a pooled connection (`<owner>.<name>`): parsed once per
   * connection and, after a few executions, planned once (PostgreSQL's generic plan) instead of
   * on every call. For the few hot statements whose planning costs more than their execution.
   */
  readonly prepared: boolean;
  /**
   * Where it runs when a read replica is configured (DATABASE_REPLICA_URL; see ReadReplica):
   * `primary` always (writes, locks, idempotency, detail reads that must see the caller's own
   * write); `replica`, a read that may lag up to DATABASE_REPLICA_MAX_LAG_MS (lists, telemetry,
   * tracking, report downloads), on the primary whenever the replica is away or further behind;
   * `failover`, on the primary, or on a caught-up replica while the primary is unreachable (the
   * credential check, so that replica reads go on while the primary is away). Inside a
   * transaction every statement runs on the transaction's (primary) connection.
   */
  readonly route: QueryRoute;
}

export type QueryRoute = 'primary' | 'replica' | 'failover';

declare const tenantBrand: unique symbol;
declare const platformBrand: unique symbol;
export type TenantQuery = Query & { readonly scope: 'tenant'; readonly [tenantBrand]: true };
export type PlatformQuery = Query & { readonly scope: 'platform'; readonly [platformBrand]: true };

/** Parameters of a tenant statement: the tenant first, always. */
export type TenantParams = readonly [AccountId, ...unknown[]];

export interface QueryFamily<T extends Record<string, string>, P extends Record<string, string>> {
  /** The repository that owns the tables (one name per group of tables). */
  owner: string;
  /**
   * Owners that split one store's tables between them (the webhooks store: endpoints, deliveries,
   * maintenance). Each table still has one owner, but the owners of a group may write each other's
   * tables (the dispatcher counts an endpoint's failures; housekeeping prunes deliveries).
   */
  group?: string;
  /** Tables this repository owns: only it (and the owners of its group) writes them. */
  tables: readonly string[];
  /** Other owners' tables its statements read (joins for a filter or a view). */
  reads?: readonly string[];
  /**
   * Other owners' tables it writes directly: the demo fixture only (it seeds history, not news),
   * so that no production family carries seed statements. Checked by test/deployment/queries.spec.ts.
   */
  writes?: readonly string[];
  tenant?: T;
  platform?: P;
  /**
   * Statements run as named prepared statements (see `Query.prepared`): only hot, fixed-shape
   * statements whose plan does not depend on their parameters' values.
   */
  prepared?: ReadonlyArray<keyof T | keyof P>;
  /** Read-only statements whose answer may lag (see `Query.route`): they may run on the read replica. */
  replica?: ReadonlyArray<keyof T | keyof P>;
  /** Read-only statements that fall back to a caught-up replica while the primary is unreachable (see `Query.route`). */
  failover?: ReadonlyArray<keyof T | keyof P>;
}

export interface QueryFamilyRecord {
  owner: string;
  group: string | null;
  tables: readonly string[];
  reads: readonly string[];
  writes: readonly string[];
  queries: Query[];
}

const FAMILIES = new Map<string, QueryFamilyRecord>();

/** Everything declared so far (the query-file writer imports every `*.queries.ts` first). */
export function declaredQueryFamilies(): QueryFamilyRecord[] {
  return [...FAMILIES.values()].sort((a, b) => a.owner.localeCompare(b.owner));
}

/** Collapses indentation so a statement reads the same in code, logs and the query files. */
function normalise(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n')
    .replace(/^\s+/, '');
}

/** What a statement that may run on a read-only standby must not contain. */
const WRITES = /\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|FOR\s+(NO\s+KEY\s+)?UPDATE|FOR\s+(KEY\s+)?SHARE|pg_advisory\w*|nextval|setval)\b/i;

/** Whether `text` only reads (a replica answers nothing else: it is read-only). */
export function onlyReads(text: string): boolean {
  return /^\s*(SELECT|WITH|\()/i.test(text) && !WRITES.test(text);
}

function dedent(text: string): string {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const indent = Math.min(...lines.slice(1).map((line) => line.length - line.trimStart().length), Number.MAX_SAFE_INTEGER);
  return [lines[0].trim(), ...lines.slice(1).map((line) => line.slice(Number.isFinite(indent) ? indent : 0))].join('\n');
}

export function defineQueries<T extends Record<string, string> = Record<never, string>, P extends Record<string, string> = Record<never, string>>(
  family: QueryFamily<T, P>,
): { [K in keyof T]: TenantQuery } & { [K in keyof P]: PlatformQuery } {
  if (FAMILIES.has(family.owner)) throw new Error(`query family ${family.owner} is declared twice`);
  const queries: Query[] = [];
  const out: Record<string, Query> = {};
  const prepared = new Set<string>((family.prepared ?? []).map(String));
  const routes = new Map<string, QueryRoute>();
  for (const [route, names] of [['replica', family.replica ?? []], ['failover', family.failover ?? []]] as const) {
    for (const name of names.map(String)) {
      if (routes.has(name)) throw new Error(`query ${family.owner}.${name} is routed twice`);
      routes.set(name, route);
    }
  }
  for (const [scope, statements] of [
    ['tenant', family.tenant ?? {}],
    ['platform', family.platform ?? {}],
  ] as const) {
    for (const [name, text] of Object.entries(statements)) {
      if (out[name]) throw new Error(`query ${family.owner}.${name} is declared twice`);
      const route = routes.get(name) ?? 'primary';
      routes.delete(name);
      const normalised = normalise(dedent(text));
      if (route !== 'primary' && !onlyReads(normalised)) throw new Error(`query ${family.owner}.${name} writes or locks: it cannot run on a read replica`);
      const query: Query = Object.freeze({ owner: family.owner, name, text: normalised, scope, prepared: prepared.delete(name), route });
      out[name] = query;
      queries.push(query);
    }
  }
  if (routes.size > 0) throw new Error(`query family ${family.owner} routes undeclared statements: ${[...routes.keys()].join(', ')}`);
  if (prepared.size > 0) throw new Error(`query family ${family.owner} prepares undeclared statements: ${[...prepared].join(', ')}`);
  FAMILIES.set(family.owner, { owner: family.owner, group: family.group ?? null, tables: family.tables, reads: family.reads ?? [], writes: family.writes ?? [], queries });
  return out as { [K in keyof T]: TenantQuery } & { [K in keyof P]: PlatformQuery };
}
