import { createHmac } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { seedDemoVesselTrack, seedDemoAlarm, demoDeviceApprovedAt, existingReportIds, demoShipmentByReference, lockDemoShipmentSeed, seedDemoAttachments, seedDemoShare, seedDemoShipment } from '@app/domain/demo';
import { DEMO_CATALOGUE_IDS } from './demo-catalogue';
import { DEMO_DEVICE_IDS } from './demo-devices';
import type { DemoSeedContext } from './demo-context';
import type { AccountId } from '@app/vocabulary';
import { generateDeviceReports, generateShipmentReports, deriveShareToken, shareLinkKey } from '@app/domain';

const id = (group: string, n: number): string => `00000000-0000-7000-8000-${group.padStart(4, '0')}${n.toString(16).padStart(8, '0')}`;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Shipment ids are integers from a sequence: the demo finds its shipments by these references. */
export const DEMO_SHIPMENT_REFERENCES = { active: 'DEMO-ACTIVE-001', completed: 'DEMO-DONE-001' } as const;

/** Fixed report ids (group `ec`) keep re-runs from generating the files again. */
export const DEMO_REPORT_IDS = {
  primary: { pdf: id('ec', 1), csv: id('ec', 2) },
  other: { pdf: id('ec', 3), csv: id('ec', 4) },
} as const;

const DEMO_SHIPMENT_ALARM = id('ac', 4);
export const DEMO_VESSEL = { mmsi: '271000123', imo: '9074729' } as const;

/** The demo link's nonce, derived from the secrets key so that every run prints the same URL. */
const demoShareNonce = (secretsKey: Buffer): Buffer => createHmac('sha256', secretsKey).update('demo-share:active').digest().subarray(0, 16);

interface Plan {
  reference: string;
  name: string;
  template: string;
  status: 'active' | 'completed';
  startedAt: Date;
  completedAt: Date | null;
  devices: readonly string[];
  legs: object[];
}

const leg = (mode: string, carrier: string, from: string, to: string, departure: Date, arrival: Date, vessel: { mmsi?: string; imo?: string } = {}) => ({
  mode,
  carrier_id: carrier,
  vessel_mmsi: vessel.mmsi ?? null,
  vessel_imo: vessel.imo ?? null,
  from_location_id: from,
  to_location_id: to,
  planned_departure_at: departure.toISOString(),
  planned_arrival_at: arrival.toISOString(),
});

/** Finds the shipment by reference or creates it with its attachments (history: no outbox events). */
async function ensureShipment(manager: EntityManager, accountId: AccountId, plan: Plan): Promise<number> {
  const existing = await demoShipmentByReference(manager, accountId, plan.reference);
  if (existing !== null) return existing;
  const c = DEMO_CATALOGUE_IDS.primary;
  const shipmentId = await seedDemoShipment(
    manager,
    [
      accountId,
      plan.reference,
      plan.name,
      plan.status,
      plan.template,
      c.locations[0],
      c.locations[1],
      plan.template === c.shipment_templates[1] ? c.carriers[0] : c.carriers[1],
      c.receivers[0],
      c.alert_presets[0],
      plan.startedAt.toISOString(),
      new Date(plan.startedAt.getTime() + (plan.status === 'completed' ? 2 : 32) * DAY_MS).toISOString(),
      JSON.stringify(plan.legs),
      plan.completedAt?.toISOString() ?? null,
      plan.completedAt ? 'api' : null,
    ],
  );
  await seedDemoAttachments(manager, [shipmentId, accountId, plan.devices, plan.startedAt.toISOString(), plan.completedAt?.toISOString() ?? null]);
  return shipmentId;
}

/** Hourly positions of the demo vessel between Izmir and Istanbul, up to now; re-runs add the new hours. */
async function seedVesselTrack(manager: EntityManager, from: Date): Promise<void> {
  await seedDemoVesselTrack(manager, DEMO_VESSEL, from);
}

/**
 * DESIGN §7 shipments: an active shipment of primary with the three `in_shipment` devices (a sea
 * leg whose vessel has AIS positions, and a share link), a completed one with its reports, and a
 * device report of account `other`. Idempotent: shipments are found by reference (under an
 * advisory lock), reports and the share record have fixed keys.
 */
export async function seedDemoShipments({ dataSource, fixture, secretsKey }: DemoSeedContext): Promise<void> {
  const { primary } = fixture.accounts;
  const anchor = await demoDeviceApprovedAt(dataSource, DEMO_DEVICE_IDS.primary[0]);
  const at = (days: number): Date => new Date(anchor.getTime() + days * DAY_MS);
  const c = DEMO_CATALOGUE_IDS.primary;
  const result = await dataSource.transaction(async (manager) => {
    await lockDemoShipmentSeed(manager);
    const completed = await ensureShipment(manager, primary, {
      reference: DEMO_SHIPMENT_REFERENCES.completed,
      name: 'Vaccines Izmir → Ankara (delivered)',
      template: c.shipment_templates[0],
      status: 'completed',
      startedAt: at(-6),
      completedAt: at(-4),
      devices: DEMO_DEVICE_IDS.primary.slice(0, 2),
      legs: [leg('road', c.carriers[1], c.locations[0], c.locations[1], at(-6), at(-4))],
    });
    await seedDemoAlarm(manager, [DEMO_SHIPMENT_ALARM, primary, completed, at(-5).toISOString(), new Date(at(-5).getTime() + HOUR_MS).toISOString(), DEMO_DEVICE_IDS.primary[0]]);
    const active = await ensureShipment(manager, primary, {
      reference: DEMO_SHIPMENT_REFERENCES.active,
      name: 'Insulin Izmir → Istanbul by sea, then Ankara',
      template: c.shipment_templates[1],
      status: 'active',
      startedAt: at(-2),
      completedAt: null,
      devices: DEMO_DEVICE_IDS.inShipment,
      legs: [
        leg('sea', c.carriers[0], c.locations[0], c.locations[2], at(-2), at(30), DEMO_VESSEL),
        leg('road', c.carriers[1], c.locations[2], c.locations[1], at(30), at(32)),
      ],
    });
    await seedVesselTrack(manager, at(-2));
    const nonce = demoShareNonce(secretsKey);
    const token = deriveShareToken(shareLinkKey(secretsKey), { accountId: primary, shipmentId: active, nonce });
    await seedDemoShare(manager, [active, primary, token, nonce, at(90).toISOString(), at(-2).toISOString()]);
    const existing = await existingReportIds(manager, Object.values(DEMO_REPORT_IDS).flatMap((r) => [r.pdf, r.csv]));
    if (!existing.has(DEMO_REPORT_IDS.primary.pdf)) await generateShipmentReports(manager, primary, completed, { ids: DEMO_REPORT_IDS.primary, generatedAt: at(-4) });
    if (!existing.has(DEMO_REPORT_IDS.other.pdf)) {
      await generateDeviceReports(manager, DEMO_DEVICE_IDS.other[0], { from: at(-1), to: anchor }, { ids: DEMO_REPORT_IDS.other, generatedAt: anchor });
    }
    return { active, completed, token };
  });
  const publicBaseUrl = fixture.base_url.replace(/\/api\/public\/v1$/, '');
  fixture.shipments = { active: result.active, completed: result.completed };
  fixture.shares = { active: `${publicBaseUrl}/track/${result.token}` };
  fixture.reports = {
    primary: [DEMO_REPORT_IDS.primary.pdf, DEMO_REPORT_IDS.primary.csv],
    other: [DEMO_REPORT_IDS.other.pdf, DEMO_REPORT_IDS.other.csv],
  };
}
