import type { DemoSeedContext } from './demo-context';
import type { AccountId } from '@app/vocabulary';
import { seedDemoCatalogueRows } from '@app/domain/demo';

const id = (n: number): string => `00000000-0000-7000-8000-0000000c${n.toString().padStart(4, '0')}`;

/** Fixed ids keep the demo fixture idempotent; `other` has one record of each family. */
export const DEMO_CATALOGUE_IDS = {
  primary: {
    locations: [id(1), id(2), id(3)],
    carriers: [id(11), id(12)],
    receivers: [id(21), id(22)],
    alert_presets: [id(31), id(32)],
    shipment_templates: [id(41), id(42)],
  },
  other: {
    locations: [id(101)],
    carriers: [id(111)],
    receivers: [id(121)],
    alert_presets: [id(131)],
    shipment_templates: [id(141)],
  },
} as const;

const OFF = { record_event: false, raise_alarm: false, alarm_severity: 'WARNING' };
const automation = (entry: Record<string, unknown>, exit: Record<string, unknown>) => ({
  on_entry: { ...OFF, mark_arrival: false, complete_shipment: false, ...entry },
  on_exit: { ...OFF, ...exit },
});
const circle = (latitude: number, longitude: number, radius_m: number) => ({ type: 'circle', center: { latitude, longitude }, radius_m });
const square = (lon: number, lat: number, size: number) => ({
  type: 'polygon',
  polygon: { type: 'Polygon', coordinates: [[[lon, lat], [lon + size, lat], [lon + size, lat + size], [lon, lat + size], [lon, lat]]] },
});

async function seedLocations(context: DemoSeedContext, accountId: AccountId, rows: Array<[string, string, string, string, object, object]>): Promise<void> {
  for (const [locationId, name, kind, city, geofence, settings] of rows) {
    await seedDemoCatalogueRows.location(context.dataSource, [locationId, accountId, name, kind, city, JSON.stringify(geofence), JSON.stringify(settings)]);
  }
}

async function seedCarriers(context: DemoSeedContext, accountId: AccountId, rows: Array<[string, string, string, Record<string, string | null>]>): Promise<void> {
  for (const [carrierId, name, mode, codes] of rows) {
    await seedDemoCatalogueRows.carrier(context.dataSource, [carrierId, accountId, name, mode, codes.email ?? null, codes.scac ?? null, codes.iata_code ?? null, codes.mmsi ?? null, codes.imo ?? null]);
  }
}

async function seedReceivers(context: DemoSeedContext, accountId: AccountId, rows: Array<[string, string, string, object[]]>): Promise<void> {
  for (const [receiverId, name, city, parties] of rows) {
    await seedDemoCatalogueRows.receiver(context.dataSource, [receiverId, accountId, name, city, `receiving@${city.toLowerCase()}.example`, [`alerts@${city.toLowerCase()}.example`], JSON.stringify(parties)]);
  }
}

async function seedPresets(context: DemoSeedContext, accountId: AccountId, rows: Array<[string, string, number | null, number | null, number]>): Promise<void> {
  for (const [presetId, name, min, max, delay] of rows) {
    await seedDemoCatalogueRows.alertPreset(context.dataSource, [presetId, accountId, name, min, max, delay]);
  }
}

interface TemplateRow {
  id: string;
  name: string;
  origin: string;
  destination: string;
  carrier: string | null;
  receiver: string | null;
  preset: string | null;
  legs: object[];
}

async function seedTemplates(context: DemoSeedContext, accountId: AccountId, rows: TemplateRow[]): Promise<void> {
  for (const t of rows) {
    await seedDemoCatalogueRows.shipmentTemplate(context.dataSource, [t.id, accountId, t.name, t.origin, t.destination, t.carrier, t.receiver, t.preset, JSON.stringify(t.legs)]);
  }
}

const leg = (mode: string, carrier: string | null, from: string, to: string, vessel: { mmsi?: string; imo?: string } = {}) => ({
  mode,
  carrier_id: carrier,
  vessel_mmsi: vessel.mmsi ?? null,
  vessel_imo: vessel.imo ?? null,
  from_location_id: from,
  to_location_id: to,
});

/** A few catalogue records of each family for the primary account and one for the other account. */
export async function seedDemoCatalogue(context: DemoSeedContext): Promise<void> {
  const { primary, other } = context.fixture.accounts;
  const p = DEMO_CATALOGUE_IDS.primary;
  const o = DEMO_CATALOGUE_IDS.other;

  await seedLocations(context, primary, [
    [p.locations[0], 'Izmir Port Cold Store', 'port', 'Izmir', circle(38.4382, 27.1442, 750), automation({ record_event: true }, { record_event: true, raise_alarm: true })],
    [p.locations[1], 'Ankara City Hospital Pharmacy', 'customer_site', 'Ankara', square(32.70, 39.96, 0.01), automation({ record_event: true, mark_arrival: true, complete_shipment: true }, {})],
    [p.locations[2], 'Istanbul Ambarli Port', 'port', 'Istanbul', circle(40.9667, 28.6833, 1500), automation({ record_event: true }, { record_event: true })],
  ]);
  await seedCarriers(context, primary, [
    [p.carriers[0], 'Aegean Reefer Lines', 'sea', { email: 'ops@aegean-reefer.example', scac: 'AGRL', mmsi: '271000123', imo: '9074729' }],
    [p.carriers[1], 'Anatolia Cold Trucks', 'road', { email: 'dispatch@anatolia-cold.example', scac: 'ANCT' }],
  ]);
  await seedReceivers(context, primary, [
    [p.receivers[0], 'Ankara City Hospital Pharmacy', 'Ankara', [{ name: 'Dr. Ayşe Kaya', role: 'consignee', email: 'pharmacy@ankara.example', phone: '+903125520000' }]],
    [p.receivers[1], 'Istanbul Vaccine Depot', 'Istanbul', []],
  ]);
  await seedPresets(context, primary, [
    [p.alert_presets[0], 'Vaccines 2–8 °C', 2, 8, 15],
    [p.alert_presets[1], 'Frozen −18 °C', null, -18, 30],
  ]);
  await seedTemplates(context, primary, [
    {
      id: p.shipment_templates[0],
      name: 'Izmir port → Ankara hospital (road)',
      origin: p.locations[0],
      destination: p.locations[1],
      carrier: p.carriers[1],
      receiver: p.receivers[0],
      preset: p.alert_presets[0],
      legs: [leg('road', p.carriers[1], p.locations[0], p.locations[1])],
    },
    {
      id: p.shipment_templates[1],
      name: 'Izmir port → Istanbul by sea, then road to Ankara',
      origin: p.locations[0],
      destination: p.locations[1],
      carrier: p.carriers[0],
      receiver: p.receivers[0],
      preset: p.alert_presets[0],
      legs: [
        leg('sea', p.carriers[0], p.locations[0], p.locations[2], { mmsi: '271000123', imo: '9074729' }),
        leg('road', p.carriers[1], p.locations[2], p.locations[1]),
      ],
    },
  ]);

  await seedLocations(context, other, [[o.locations[0], 'Limassol Vaccine Hub', 'distribution_center', 'Limassol', circle(34.6786, 33.0413, 500), automation({}, {})]]);
  await seedCarriers(context, other, [[o.carriers[0], 'Levant Air Cargo', 'air', { iata_code: 'LV' }]]);
  await seedReceivers(context, other, [[o.receivers[0], 'Nicosia General Hospital', 'Nicosia', []]]);
  await seedPresets(context, other, [[o.alert_presets[0], 'Vaccines 2–8 °C', 2, 8, 10]]);
  await seedTemplates(context, other, [
    { id: o.shipment_templates[0], name: 'Limassol hub round trip', origin: o.locations[0], destination: o.locations[0], carrier: o.carriers[0], receiver: o.receivers[0], preset: o.alert_presets[0], legs: [] },
  ]);

  context.fixture.catalogue = DEMO_CATALOGUE_IDS;
}
