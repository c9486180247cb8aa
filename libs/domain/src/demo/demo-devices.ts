import type { DataSource } from 'typeorm';
import { TelemetryPartitions } from '../telemetry/telemetry-partitions';
import type { DemoSeedContext } from './demo-seed';

/** `00000000-0000-7000-8000-GGGGNNNNNNNN`: group (d device, e lifecycle, f maintenance, ac alarm) and number. */
const id = (group: string, n: number): string => `00000000-0000-7000-8000-${group.padStart(4, '0')}${n.toString(16).padStart(8, '0')}`;
const numberOf = (demoId: string): number => parseInt(demoId.slice(-8), 16);

/** Fixed identifiers of the demo devices (DESIGN §7); lifecycles share the device's number. */
export const DEMO_DEVICE_IDS = {
  primary: [1, 2, 3, 4, 5, 6].map((n) => id('d', n)),
  inShipment: [7, 8, 9].map((n) => id('d', n)),
  unapproved: id('d', 10),
  deleted: id('d', 11),
  other: [12, 13].map((n) => id('d', n)),
  /** One of `primary`, owned by the secondary account before. */
  transferred: id('d', 5),
} as const;

const lifecycleOf = (deviceId: string): string => id('e', numberOf(deviceId));
const PREVIOUS_LIFECYCLE = id('e', 0x1005);
const DAY_MS = 86_400_000;

interface DemoDevice {
  id: string;
  account: 'primary' | 'other';
  approved: boolean;
  deleted: boolean;
}

function demoDevices(): DemoDevice[] {
  const d = DEMO_DEVICE_IDS;
  return [
    ...[...d.primary, ...d.inShipment].map((deviceId) => ({ id: deviceId, account: 'primary' as const, approved: true, deleted: false })),
    { id: d.unapproved, account: 'primary', approved: false, deleted: false },
    { id: d.deleted, account: 'primary', approved: true, deleted: true },
    ...d.other.map((deviceId) => ({ id: deviceId, account: 'other' as const, approved: true, deleted: false })),
  ];
}

async function seedDeviceRows(dataSource: DataSource, accounts: DemoSeedContext['fixture']['accounts'], anchor: Date): Promise<void> {
  const devices = demoDevices();
  const serial = (deviceId: string): string => `DEMO-${String(numberOf(deviceId)).padStart(4, '0')}`;
  await dataSource.query(
    `INSERT INTO devices (id, serial_number, model, firmware_version, imei, sim_iccid, firmware_key, approval_status, approved_at, purchase_cost, deleted_at)
     SELECT id, serial, 'ColdTrack T4', '4.2.0', '35000000000' || right(serial, 4), '8990000000000000' || right(serial, 4),
            md5(serial), CASE WHEN approved THEN 'approved' ELSE 'pending' END, CASE WHEN approved THEN $5::timestamptz END, 149.00,
            CASE WHEN deleted THEN $5::timestamptz END
       FROM unnest($1::uuid[], $2::text[], $3::boolean[], $4::boolean[]) AS d(id, serial, approved, deleted)
     ON CONFLICT (id) DO NOTHING`,
    [devices.map((d) => d.id), devices.map((d) => serial(d.id)), devices.map((d) => d.approved), devices.map((d) => d.deleted), anchor],
  );
  const ownedSince = new Date(anchor.getTime() - 30 * DAY_MS);
  await dataSource.query(
    `INSERT INTO device_lifecycles (id, device_id, account_id, started_at, label, thresholds)
     SELECT lifecycle_id, device_id, account_id, $4, 'Reefer ' || right(device_id::text, 2), '{"temperature_min": 2, "temperature_max": 8}'
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[]) AS l(lifecycle_id, device_id, account_id)
     ON CONFLICT (id) DO NOTHING`,
    [devices.map((d) => lifecycleOf(d.id)), devices.map((d) => d.id), devices.map((d) => accounts[d.account]), ownedSince],
  );
  // The previous owner of one device: its history must stay invisible to the current owner.
  await dataSource.query(
    `INSERT INTO device_lifecycles (id, device_id, account_id, started_at, ended_at, label, thresholds)
     SELECT $1, $2, $3, started_at - interval '60 days', started_at, 'Secondary truck 9', '{"temperature_max": 25}'
       FROM device_lifecycles WHERE id = $4
     ON CONFLICT (id) DO NOTHING`,
    [PREVIOUS_LIFECYCLE, DEMO_DEVICE_IDS.transferred, accounts.secondary, lifecycleOf(DEMO_DEVICE_IDS.transferred)],
  );
}

/** 7 days of 5-minute points for every approved device, in one INSERT … SELECT; re-runs fill up to now. */
async function seedTelemetry(dataSource: DataSource, anchor: Date): Promise<void> {
  const now = new Date();
  await new TelemetryPartitions(dataSource).ensureRange(new Date(Math.min(anchor.getTime(), now.getTime()) - 32 * DAY_MS), now);
  const approved = demoDevices().filter((d) => d.approved && !d.deleted);
  await dataSource.query(
    `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
     SELECT l.device_id, l.id, ts,
            41.0082 + 0.02 * sin(extract(epoch FROM ts) / 7200 + k), 28.9784 + 0.02 * cos(extract(epoch FROM ts) / 7200 + k),
            round((5 + 1.5 * sin(extract(epoch FROM ts) / 3600 + k))::numeric, 2),
            round((50 + 5 * cos(extract(epoch FROM ts) / 5400 + k))::numeric, 1),
            0, 0.1,
            round((100 - 10 * extract(epoch FROM ($1::timestamptz - ts)) / 604800)::numeric, 1)
       FROM unnest($2::uuid[]) WITH ORDINALITY AS d(device_id, k)
       JOIN device_lifecycles l ON l.device_id = d.device_id AND l.ended_at IS NULL
       CROSS JOIN generate_series(date_bin('5 minutes', $1::timestamptz - interval '7 days', 'epoch'), $1::timestamptz, interval '5 minutes') AS ts
      WHERE ts >= l.started_at
     ON CONFLICT (device_id, recorded_at) DO NOTHING`,
    [now, approved.map((d) => d.id)],
  );
  // A day of the previous owner's points (inside its lifecycle).
  await dataSource.query(
    `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, temperature, humidity, battery)
     SELECT l.device_id, l.id, ts, 18.5, 40, 80
       FROM device_lifecycles l
       CROSS JOIN generate_series(l.ended_at - interval '1 day', l.ended_at - interval '5 minutes', interval '5 minutes') AS ts
      WHERE l.id = $1
     ON CONFLICT (device_id, recorded_at) DO NOTHING`,
    [PREVIOUS_LIFECYCLE],
  );
  await dataSource.query(
    `UPDATE device_lifecycles l
        SET last_seen_at = p.recorded_at, battery = p.battery, battery_at = p.recorded_at,
            latitude = p.latitude, longitude = p.longitude, location_at = p.recorded_at
       FROM device_lifecycles cur
       CROSS JOIN LATERAL (
         SELECT recorded_at, battery, latitude, longitude FROM telemetry_points t
          WHERE t.device_id = cur.device_id AND t.lifecycle_id = cur.id
          ORDER BY recorded_at DESC LIMIT 1) p
      WHERE l.id = cur.id AND cur.device_id = ANY($1::uuid[])`,
    [[...approved.map((d) => d.id)]],
  );
}

async function seedMaintenance(dataSource: DataSource, anchor: Date): Promise<void> {
  const approvedPrimary = [...DEMO_DEVICE_IDS.primary, ...DEMO_DEVICE_IDS.inShipment];
  const day = (n: number): Date => new Date(anchor.getTime() - n * DAY_MS);
  const records = [
    ...approvedPrimary.map((deviceId, i) => ({
      id: id('f', i + 1), deviceId, lifecycleId: null as string | null, kind: 'calibration', at: day(35),
      summary: 'Annual temperature sensor calibration (ISO 17025 lab)', cost: 120, nextDue: day(35 - 365),
    })),
    { id: id('f', 0x20), deviceId: DEMO_DEVICE_IDS.primary[0], lifecycleId: lifecycleOf(DEMO_DEVICE_IDS.primary[0]), kind: 'repair', at: day(10), summary: 'Replaced damaged antenna', cost: 45.5, nextDue: null },
    { id: id('f', 0x21), deviceId: DEMO_DEVICE_IDS.primary[1], lifecycleId: lifecycleOf(DEMO_DEVICE_IDS.primary[1]), kind: 'fault', at: day(3), summary: 'Intermittent GPS fix reported', cost: 0, nextDue: null },
    { id: id('f', 0x22), deviceId: DEMO_DEVICE_IDS.transferred, lifecycleId: PREVIOUS_LIFECYCLE, kind: 'maintenance', at: day(40), summary: 'Battery swap for the previous owner', cost: 30, nextDue: null },
  ];
  await dataSource.query(
    `INSERT INTO device_maintenance_records (id, device_id, lifecycle_id, kind, performed_at, summary, next_due_at, cost_amount, cost_currency, internal_notes)
     SELECT id, device_id, lifecycle_id, kind, performed_at, summary, next_due_at, cost, 'EUR', 'invoice on file'
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::timestamptz[], $8::numeric[])
            AS r(id, device_id, lifecycle_id, kind, performed_at, summary, next_due_at, cost)
     ON CONFLICT (id) DO NOTHING`,
    [
      records.map((r) => r.id),
      records.map((r) => r.deviceId),
      records.map((r) => r.lifecycleId),
      records.map((r) => r.kind),
      records.map((r) => r.at),
      records.map((r) => r.summary),
      records.map((r) => r.nextDue),
      records.map((r) => r.cost),
    ],
  );
}

/** Demo alarms are history, not news: written without outbox events. */
async function seedAlarms(dataSource: DataSource, accounts: DemoSeedContext['fixture']['accounts'], anchor: Date): Promise<void> {
  const p = DEMO_DEVICE_IDS.primary;
  const alarms = [
    { id: id('ac', 1), account: accounts.primary, deviceId: p[5], lifecycleId: lifecycleOf(p[5]), type: 'SHOCK', severity: 'CRITICAL', source: 'DEVICE', message: 'Shock of 12 g reported by the device.', at: new Date(anchor.getTime() - 2 * 3_600_000), resolvedAt: null as Date | null },
    { id: id('ac', 2), account: accounts.primary, deviceId: p[1], lifecycleId: lifecycleOf(p[1]), type: 'TEMPERATURE', severity: 'WARNING', source: 'THRESHOLD', message: 'Temperature 8.6 °C above the maximum of 8 °C.', at: new Date(anchor.getTime() - 3 * DAY_MS), resolvedAt: new Date(anchor.getTime() - 3 * DAY_MS + 3_600_000) },
    { id: id('ac', 3), account: accounts.secondary, deviceId: DEMO_DEVICE_IDS.transferred, lifecycleId: PREVIOUS_LIFECYCLE, type: 'TEMPERATURE', severity: 'WARNING', source: 'THRESHOLD', message: 'Temperature 26.1 °C above the maximum of 25 °C.', at: new Date(anchor.getTime() - 31 * DAY_MS), resolvedAt: null },
  ];
  await dataSource.query(
    `INSERT INTO alarms (id, account_id, device_id, lifecycle_id, type, severity, source, message, triggered_at, created_at, updated_at, resolved_at)
     SELECT id, account_id, device_id, lifecycle_id, type, severity, source, message, at, at, at, resolved_at
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::timestamptz[])
            AS a(id, account_id, device_id, lifecycle_id, type, severity, source, message, at, resolved_at)
     ON CONFLICT DO NOTHING`,
    [
      alarms.map((a) => a.id),
      alarms.map((a) => a.account),
      alarms.map((a) => a.deviceId),
      alarms.map((a) => a.lifecycleId),
      alarms.map((a) => a.type),
      alarms.map((a) => a.severity),
      alarms.map((a) => a.source),
      alarms.map((a) => a.message),
      alarms.map((a) => a.at),
      alarms.map((a) => a.resolvedAt),
    ],
  );
}

/** DESIGN §7 devices, lifecycles, telemetry, thresholds, maintenance and alarms. */
export async function seedDemoDevices({ dataSource, fixture }: DemoSeedContext): Promise<void> {
  // The first run fixes the timeline; later runs keep it (rows exist) and only add new telemetry.
  const [existing] = (await dataSource.query(`SELECT approved_at FROM devices WHERE id = $1`, [DEMO_DEVICE_IDS.primary[0]])) as Array<{ approved_at: Date }>;
  const anchor = existing?.approved_at ?? new Date();
  await seedDeviceRows(dataSource, fixture.accounts, anchor);
  await seedTelemetry(dataSource, anchor);
  await seedMaintenance(dataSource, anchor);
  await seedAlarms(dataSource, fixture.accounts, anchor);
  fixture.devices = {
    primary: [...DEMO_DEVICE_IDS.primary],
    in_shipment: [...DEMO_DEVICE_IDS.inShipment],
    unapproved: DEMO_DEVICE_IDS.unapproved,
    deleted: DEMO_DEVICE_IDS.deleted,
    other: [...DEMO_DEVICE_IDS.other],
    transferred: DEMO_DEVICE_IDS.transferred,
  };
}
