import { sql, type Db } from '@app/database/sql';
import { DEMO_QUERIES as Q } from './demo.queries';

// The demo fixture's statements (see demo.queries.ts): the CLI's seed passes their parameters in order.

export async function countAccounts(db: Db): Promise<number> {
  return (await sql.first<{ n: number }>(db, Q.countAccounts))?.n ?? 0;
}

export async function seedDemoAccount(db: Db, account: { id: string; name: string; kind: string; status: string }): Promise<void> {
  await sql.run(db, Q.seedDemoAccount, [account.id, account.name, account.kind, account.status]);
}

export async function seedDemoUser(
  db: Db,
  user: { id: string; accountId: string; email: string; fullName: string; role: string | null; staff: boolean },
): Promise<void> {
  await sql.run(db, Q.seedDemoUser, [user.id, user.accountId, user.email, user.fullName, user.role, user.staff]);
}

export const seedDemoCatalogueRows = {
  location: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoLocation, values),
  carrier: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoCarrier, values),
  receiver: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoReceiver, values),
  alertPreset: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoAlertPreset, values),
  shipmentTemplate: (db: Db, values: unknown[]) => sql.run(db, Q.seedDemoShipmentTemplate, values),
};

/** When the device was approved (the demo seed anchors its history on it). */
export async function demoDeviceApprovedAt(db: Db, deviceId: string): Promise<Date> {
  const row = await sql.first<{ approved_at: Date }>(db, Q.deviceApprovedAt, [deviceId]);
  if (!row) throw new Error(`no device ${deviceId}`);
  return row.approved_at;
}

/** The demo seed's anchor: when the first demo device was approved, or null before the first seed. */
export async function demoDeviceApprovedAtIfSeeded(db: Db, deviceId: string): Promise<Date | null> {
  return (await sql.first<{ approved_at: Date | null }>(db, Q.deviceApprovedAt, [deviceId]))?.approved_at ?? null;
}

export const seedDemoDeviceRows = {
  seedDemoDevices: (db: Db, params: unknown[]) => sql.run(db, Q.seedDemoDevices, params),
  seedDemoLifecycles: (db: Db, params: unknown[]) => sql.run(db, Q.seedDemoLifecycles, params),
  seedDemoPreviousLifecycle: (db: Db, params: unknown[]) => sql.run(db, Q.seedDemoPreviousLifecycle, params),
  seedDemoLastSeen: (db: Db, params: unknown[]) => sql.run(db, Q.seedDemoLastSeen, params),
  seedDemoMaintenance: (db: Db, params: unknown[]) => sql.run(db, Q.seedDemoMaintenance, params),
};

export const seedDemoTelemetryRows = {
  seedDemoTelemetry: (db: Db, params: unknown[]) => sql.run(db, Q.seedDemoTelemetry, params),
  seedDemoPreviousTelemetry: (db: Db, params: unknown[]) => sql.run(db, Q.seedDemoPreviousTelemetry, params),
};

/** The demo's alarm history (no outbox events: history, not news). */
export async function seedDemoHistory(db: Db, params: unknown[]): Promise<void> {
  await sql.run(db, Q.seedDemoHistory, params);
}

export async function seedDemoAlarm(db: Db, values: [id: string, accountId: string, shipmentId: number, at: string, resolvedAt: string, deviceId: string]): Promise<void> {
  await sql.run(db, Q.seedDemoAlarm, values);
}

export async function seedDemoVesselTrack(db: Db, vessel: { mmsi: string; imo: string }, from: Date): Promise<void> {
  await sql.run(db, Q.seedDemoVesselTrack, [vessel.mmsi, vessel.imo, from.toISOString()]);
}

// Shipments: history written directly (no outbox events), idempotent under an advisory lock.
export async function lockDemoShipmentSeed(db: Db): Promise<void> {
  await sql.run(db, Q.demoSeedLock);
}

export async function demoShipmentByReference(db: Db, accountId: string, reference: string): Promise<number | null> {
  return (await sql.first<{ id: number }>(db, Q.demoShipmentByReference, [accountId, reference]))?.id ?? null;
}

export async function seedDemoShipment(db: Db, values: unknown[]): Promise<number> {
  const row = await sql.first<{ id: number }>(db, Q.seedDemoShipment, values);
  if (!row) throw new Error('demo shipment insert returned no id');
  return row.id;
}

export async function seedDemoAttachments(db: Db, values: [shipmentId: number, accountId: string, deviceIds: readonly string[], attachedAt: string, detachedAt: string | null]): Promise<void> {
  await sql.run(db, Q.seedDemoAttachments, values);
}

export async function seedDemoShare(db: Db, values: [shipmentId: number, accountId: string, token: string, nonce: Buffer, expiresAt: string, createdAt: string]): Promise<void> {
  await sql.run(db, Q.seedDemoShare, values);
}

/** Which of the demo's fixed report ids exist already. */
export async function existingReportIds(db: Db, ids: string[]): Promise<Set<string>> {
  return new Set((await sql.rows<{ id: string }>(db, Q.existingReportIds, [ids])).map((row) => row.id));
}
