import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';

const MONTH_MS = 30.4375 * 86_400_000;

/**
 * What an account's trail is made of, by weight (per 100 records): the changes customers make
 * most (device settings and labels, shipments, alarm resolutions) and the rare ones (webhook
 * endpoints, credentials, users). `resources`: how many distinct resources of the kind the
 * account has; `changes`: the record's changed fields, an SQL expression of the series number g.
 */
export const AUDIT_KINDS = [
  { weight: 30, type: 'device', action: 'PATCH /devices/{device_id}/settings/', operation: 'update', resources: 600, changes: `jsonb_build_object('thresholds', jsonb_build_object('old', jsonb_build_object('temperature_max', 8), 'new', jsonb_build_object('temperature_max', 6 + g % 5)))` },
  { weight: 8, type: 'device', action: 'PATCH /devices/{device_id}/label/', operation: 'update', resources: 600, changes: `jsonb_build_object('label', jsonb_build_object('old', 'Reefer ' || (g % 997), 'new', 'Reefer ' || (g % 991)))` },
  { weight: 14, type: 'shipment', action: 'POST /shipments/', operation: 'create', resources: 200_000, changes: `jsonb_build_object('reference', jsonb_build_object('old', null, 'new', 'PO-' || g), 'status', jsonb_build_object('old', null, 'new', 'planned'))` },
  { weight: 10, type: 'shipment', action: 'PATCH /shipments/{shipment_id}/', operation: 'update', resources: 200_000, changes: `jsonb_build_object('status', jsonb_build_object('old', 'planned', 'new', 'in_transit'))` },
  { weight: 6, type: 'shipment', action: 'POST /shipments/{shipment_id}/complete/', operation: 'update', resources: 200_000, changes: `jsonb_build_object('status', jsonb_build_object('old', 'in_transit', 'new', 'completed'))` },
  { weight: 4, type: 'shipment_share', action: 'POST /shipments/{shipment_id}/shares/', operation: 'create', resources: 50_000, changes: `jsonb_build_object('token_hash', jsonb_build_object('changed', true), 'expires_at', jsonb_build_object('old', null, 'new', '2026-12-31T00:00:00Z'))` },
  { weight: 18, type: 'alarm', action: 'POST /alarms/{alarm_id}/resolve/', operation: 'update', resources: 300_000, changes: `jsonb_build_object('resolved_at', jsonb_build_object('old', null, 'new', '2026-01-01T00:00:00Z'), 'resolution_note', jsonb_build_object('old', null, 'new', 'Door left open at dock ' || (g % 40)))` },
  { weight: 3, type: 'location', action: 'PATCH /locations/{location_id}/', operation: 'update', resources: 400, changes: `jsonb_build_object('name', jsonb_build_object('old', 'Depot ' || (g % 400), 'new', 'Hub ' || (g % 400)))` },
  { weight: 2, type: 'carrier', action: 'POST /carriers/', operation: 'create', resources: 150, changes: `jsonb_build_object('name', jsonb_build_object('old', null, 'new', 'Carrier ' || (g % 150)))` },
  { weight: 2, type: 'webhook_endpoint', action: 'POST /panel/webhooks/{endpoint_id}/rotate-secret', operation: 'update', resources: 20, changes: `jsonb_build_object('secret_ciphertext', jsonb_build_object('changed', true))` },
  { weight: 1, type: 'user', action: 'POST /panel/users/{user_id}/role', operation: 'update', resources: 40, changes: `jsonb_build_object('role', jsonb_build_object('old', 'viewer', 'new', 'operator'))` },
  { weight: 1, type: 'api_credential', action: 'credentials:rotate', operation: 'update', resources: 12, changes: `jsonb_build_object('secret_hash', jsonb_build_object('changed', true))` },
  { weight: 1, type: 'account', action: 'PATCH /panel/account', operation: 'update', resources: 1, changes: `jsonb_build_object('name', jsonb_build_object('old', 'Pharma Logistics', 'new', 'Pharma Logistics GmbH'))` },
] as const;

/** 12 API credentials, 15 panel users, 3 CLI operators; a few of them make most changes (skewed pick). */
export const AUDIT_ACTORS = 30;
const CREDENTIAL_ACTORS = 12;
const PANEL_ACTORS = 15;

/** The actor id of actor number n (0 ≤ n < AUDIT_ACTORS), as the seed writes it. */
export function auditActorId(n: number): string {
  if (n < CREDENTIAL_ACTORS + PANEL_ACTORS) return md5Uuid(`actor-${n}`);
  return `operator-${n}`;
}

function md5Uuid(text: string): string {
  // Mirrors md5(text)::uuid::text in the seed statement.
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Kind index of each of the 100 weight slots. */
function slots(): number[] {
  const out: number[] = [];
  AUDIT_KINDS.forEach((kind, i) => {
    for (let w = 0; w < kind.weight; w++) out.push(i);
  });
  if (out.length !== 100) throw new Error(`audit kinds weigh ${out.length}, not 100`);
  return out;
}

/**
 * Inserts records seq `first`..`last` of the account's trail, spread evenly in time (seq order is
 * time order, as the chain keeps it) between `from` and `to`. Straight into audit_events: the
 * bench measures reads, so the hashes are stand-ins (64 hex characters, not a valid chain: do not
 * run audit:verify on these accounts) and no chain head is kept.
 */
const SEED_STATEMENT = `
  WITH kinds (n, resource_type, action, operation, resources) AS (VALUES ${AUDIT_KINDS.map((k, i) => `(${i}, '${k.type}', '${k.action}', '${k.operation}', ${k.resources})`).join(', ')}),
  series AS (
    SELECT g, abs(hashint8(g)) AS h, abs(hashint8(g + 7919)) AS h2
      FROM generate_series($2::bigint, $3::bigint) AS g
  ),
  picked AS (
    SELECT s.g, s.h, s.h2, k.n, k.resource_type, k.action, k.operation, k.resources,
           -- Skewed: actor 0 makes about a fifth of the changes, the last ones a few each.
           floor(${AUDIT_ACTORS} * power((s.h2 % 1000) / 1000.0, 2))::int AS actor
      FROM series s
      JOIN kinds k ON k.n = ('{${slots().join(',')}}'::int[])[1 + s.h % 100]
  )
  INSERT INTO audit_events (id, account_id, seq, occurred_at, actor_type, actor_id, client_address, request_id, reason,
                            action, operation, resource_type, resource_id, changes, prev_hash, hash)
  SELECT gen_random_uuid(), $1::uuid, p.g,
         $5::timestamptz + (p.g - 1) * (($6::timestamptz - $5::timestamptz) / $4::bigint),
         CASE WHEN p.actor < ${CREDENTIAL_ACTORS} THEN 'credential' WHEN p.actor < ${CREDENTIAL_ACTORS + PANEL_ACTORS} THEN 'panel_user' ELSE 'cli' END,
         CASE WHEN p.actor < ${CREDENTIAL_ACTORS + PANEL_ACTORS} THEN md5('actor-' || p.actor)::uuid::text ELSE 'operator-' || p.actor END,
         '203.0.113.' || (p.h2 % 250), md5('request-' || p.g)::uuid::text,
         CASE WHEN p.h % 20 = 0 THEN 'Recalibrated after service visit' END,
         p.action, p.operation, p.resource_type, md5(p.resource_type || '-' || (p.h2 % p.resources))::uuid::text,
         CASE p.n ${AUDIT_KINDS.map((k, i) => `WHEN ${i} THEN ${k.changes}`).join(' ')} END,
         md5('prev-' || p.g) || md5('prev2-' || p.g), md5('hash-' || p.g) || md5('hash2-' || p.g)
    FROM picked p`;

const CHUNK = 500_000;

export interface AuditTrailSpan {
  from: Date;
  to: Date;
}

/** The span a seeded trail covers: `months` whole months back from the start of this hour. */
export function auditSpan(now: number, months: number): AuditTrailSpan {
  const to = new Date(Math.floor(now / 3_600_000) * 3_600_000);
  return { from: new Date(to.getTime() - months * MONTH_MS), to };
}

/**
 * `count` records for the account over `span`, in chunks of half a million (one statement each),
 * then fresh statistics; on a connection of its own without the statement timeout (a chunk takes
 * longer than the harness's bound on a busy machine).
 */
export async function seedAuditTrail(db: DataSource, accountId: string, count: number, span: AuditTrailSpan, log?: (message: string) => void): Promise<void> {
  const runner = db.createQueryRunner();
  try {
    await runner.query('SET statement_timeout = 0');
    await runner.query(
      `SELECT audit_ensure_partition(m) FROM generate_series(date_trunc('month', $1::timestamptz), $2::timestamptz, interval '1 month') AS m`,
      [span.from.toISOString(), span.to.toISOString()],
    );
    for (let first = 1; first <= count; first += CHUNK) {
      const last = Math.min(count, first + CHUNK - 1);
      await runner.query(SEED_STATEMENT, [accountId, first, last, count, span.from.toISOString(), span.to.toISOString()]);
      log?.(`  audit trail ${accountId.slice(0, 8)}: ${last.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} records`);
    }
    await runner.query('VACUUM (ANALYZE) audit_events');
    await runner.query('RESET statement_timeout');
  } finally {
    await runner.release();
  }
}
