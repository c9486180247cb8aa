import type { DataSource } from 'typeorm';
import { seedDemoHistory, demoDeviceApprovedAtIfSeeded, seedDemoDeviceRows, seedDemoTelemetryRows } from '@app/domain/demo';
import type { DemoSeedContext } from './demo-context';
import { TelemetryPartitions } from '@app/domain';

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

const seedDemoRows = {
  ...seedDemoDeviceRows,
  ...seedDemoTelemetryRows,
  seedDemoHistory,
};

async function seedDeviceRows(dataSource: DataSource, accounts: DemoSeedContext['fixture']['accounts'], anchor: Date): Promise<void> {
  const devices = demoDevices();
  const serial = (deviceId: string): string => `DEMO-${String(numberOf(deviceId)).padStart(4, '0')}`;
  await seedDemoRows.seedDemoDevices(dataSource, [devices.map((d) => d.id), devices.map((d) => serial(d.id)), devices.map((d) => d.approved), devices.map((d) => d.deleted), anchor]);
  const ownedSince = new Date(anchor.getTime() - 30 * DAY_MS);
  await seedDemoRows.seedDemoLifecycles(dataSource, [devices.map((d) => lifecycleOf(d.id)), devices.map((d) => d.id), devices.map((d) => accounts[d.account]), ownedSince]);
  // The previous owner of one device: its history must stay invisible to the current owner.
  await seedDemoRows.seedDemoPreviousLifecycle(dataSource, [PREVIOUS_LIFECYCLE, DEMO_DEVICE_IDS.transferred, accounts.secondary, lifecycleOf(DEMO_DEVICE_IDS.transferred)]);
}

/** 7 days of 5-minute points for every approved device, in one INSERT … SELECT; re-runs fill up to now. */
async function seedTelemetry(dataSource: DataSource, anchor: Date): Promise<void> {
  const now = new Date();
  await new TelemetryPartitions(dataSource).ensureRange(new Date(Math.min(anchor.getTime(), now.getTime()) - 32 * DAY_MS), now);
  const approved = demoDevices().filter((d) => d.approved && !d.deleted);
  await seedDemoRows.seedDemoTelemetry(dataSource, [now, approved.map((d) => d.id)]);
  // A day of the previous owner's points (inside its lifecycle).
  await seedDemoRows.seedDemoPreviousTelemetry(dataSource, [PREVIOUS_LIFECYCLE]);
  await seedDemoRows.seedDemoLastSeen(dataSource, [[...approved.map((d) => d.id)]]);
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
  await seedDemoRows.seedDemoMaintenance(dataSource, [
      records.map((r) => r.id),
      records.map((r) => r.deviceId),
      records.map((r) => r.lifecycleId),
      records.map((r) => r.kind),
      records.map((r) => r.at),
      records.map((r) => r.summary),
      records.map((r) => r.nextDue),
      records.map((r) => r.cost),
    ]);
}

/** Demo alarms are history, not news: written without outbox events. */
async function seedAlarms(dataSource: DataSource, accounts: DemoSeedContext['fixture']['accounts'], anchor: Date): Promise<void> {
  const p = DEMO_DEVICE_IDS.primary;
  const alarms = [
    { id: id('ac', 1), account: accounts.primary, deviceId: p[5], lifecycleId: lifecycleOf(p[5]), type: 'SHOCK', severity: 'CRITICAL', source: 'DEVICE', message: 'Shock of 12 g reported by the device.', at: new Date(anchor.getTime() - 2 * 3_600_000), resolvedAt: null as Date | null },
    { id: id('ac', 2), account: accounts.primary, deviceId: p[1], lifecycleId: lifecycleOf(p[1]), type: 'TEMPERATURE', severity: 'WARNING', source: 'THRESHOLD', message: 'Temperature 8.6 °C above the maximum of 8 °C.', at: new Date(anchor.getTime() - 3 * DAY_MS), resolvedAt: new Date(anchor.getTime() - 3 * DAY_MS + 3_600_000) },
    { id: id('ac', 3), account: accounts.secondary, deviceId: DEMO_DEVICE_IDS.transferred, lifecycleId: PREVIOUS_LIFECYCLE, type: 'TEMPERATURE', severity: 'WARNING', source: 'THRESHOLD', message: 'Temperature 26.1 °C above the maximum of 25 °C.', at: new Date(anchor.getTime() - 31 * DAY_MS), resolvedAt: null },
  ];
  await seedDemoRows.seedDemoHistory(dataSource, [
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
    ]);
}

/** DESIGN §7 devices, lifecycles, telemetry, thresholds, maintenance and alarms. */
export async function seedDemoDevices({ dataSource, fixture }: DemoSeedContext): Promise<void> {
  // The first run fixes the timeline; later runs keep it (rows exist) and only add new telemetry.
  const anchor = (await demoDeviceApprovedAtIfSeeded(dataSource, DEMO_DEVICE_IDS.primary[0])) ?? new Date();
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
