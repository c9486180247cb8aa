import type { EntityManager } from 'typeorm';
import { latestVesselPosition, type VesselPositionRecord } from '../ais/vessel-positions';
import { activeLeg, presentLegs, toStoredLegs, type ShipmentLegRecord } from './shipment-legs';
import { trackedPointsQuery } from './tracked-points';
import type { AccountId } from '@app/vocabulary';

export const SHIPMENT_STATUSES = ['active', 'completed'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

export const SHIPMENT_EVENT_KINDS = ['geofence_entry', 'geofence_exit', 'arrival'] as const;
export type ShipmentEventKind = (typeof SHIPMENT_EVENT_KINDS)[number];

/** Most recent geofence events carried by the record. */
export const SHIPMENT_RECORD_EVENT_LIMIT = 50;

/** A catalogue record the shipment points at; `name` is null once the record was deleted (completed shipments only). */
export interface NamedRef {
  id: string;
  name: string | null;
}

/** The shipment as lists show it. */
export interface ShipmentListItem {
  id: number;
  reference: string;
  name: string;
  status: ShipmentStatus;
  template_id: string | null;
  origin: NamedRef;
  destination: NamedRef;
  receiver: NamedRef | null;
  carrier: NamedRef | null;
  alert_preset: NamedRef | null;
  planned_departure_at: string | null;
  planned_arrival_at: string | null;
  /** Devices attached now (active) or at completion (completed). */
  device_ids: string[];
  started_at: string;
  arrived_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ShipmentDeviceRecord {
  device_id: string;
  serial_number: string;
  label: string | null;
  attached_at: string;
  /** null while attached; the completion moment for devices attached at completion. */
  detached_at: string | null;
}

export interface ShipmentSummaryRecord {
  /** Points of the tracking window (every attached device, while attached). */
  point_count: number;
  temperature: { min: number; max: number; avg: number } | null;
  /** Unresolved alarms raised while a device travelled in this shipment. */
  open_alarms: number;
}

export interface ShipmentEventRecord {
  kind: ShipmentEventKind;
  location_id: string | null;
  device_id: string | null;
  recorded_at: string;
}

/**
 * The shipment record: what `GET /shipments/{id}/` returns and what the webhook events
 * `shipment.created` / `shipment.completed` carry as `data` — both are built here, only here.
 */
export interface ShipmentRecord extends ShipmentListItem {
  transport_legs: ShipmentLegRecord[];
  active_transport_leg: ShipmentLegRecord | null;
  devices: ShipmentDeviceRecord[];
  /** Latest AIS position of the active sea leg's vessel, or null. */
  ais_position: VesselPositionRecord | null;
  summary: ShipmentSummaryRecord;
  events: ShipmentEventRecord[];
}

/** A `shipments` row with the names of what it references. */
export interface ShipmentRow {
  id: number;
  account_id: AccountId;
  reference: string;
  name: string;
  status: ShipmentStatus;
  template_id: string | null;
  origin_location_id: string;
  origin_name: string | null;
  destination_location_id: string;
  destination_name: string | null;
  receiver_id: string | null;
  receiver_name: string | null;
  carrier_id: string | null;
  carrier_name: string | null;
  alert_preset_id: string | null;
  alert_preset_name: string | null;
  planned_departure_at: Date | null;
  planned_arrival_at: Date | null;
  transport_legs: unknown;
  started_at: Date;
  arrived_at: Date | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
  device_ids: string[];
}

/**
 * Shipments with the names of their catalogue records (each joined inside the same account).
 * Callers append `WHERE s.account_id = $1 AND s.deleted_at IS NULL ...`.
 */
export const SHIPMENT_ROW_SELECT = `
  SELECT s.id, s.account_id, s.reference, s.name, s.status, s.template_id,
         s.origin_location_id, o.name AS origin_name, s.destination_location_id, d.name AS destination_name,
         s.receiver_id, r.name AS receiver_name, s.carrier_id, c.name AS carrier_name, s.alert_preset_id, p.name AS alert_preset_name,
         s.planned_departure_at, s.planned_arrival_at, s.transport_legs, s.started_at, s.arrived_at, s.completed_at, s.created_at, s.updated_at,
         ARRAY(SELECT sd.device_id FROM shipment_devices sd
                WHERE sd.shipment_id = s.id AND (sd.detached_at IS NULL OR sd.detached_at = s.completed_at)
                ORDER BY sd.attached_at, sd.id)::text[] AS device_ids
    FROM shipments s
    LEFT JOIN locations o ON o.account_id = s.account_id AND o.id = s.origin_location_id
    LEFT JOIN locations d ON d.account_id = s.account_id AND d.id = s.destination_location_id
    LEFT JOIN receivers r ON r.account_id = s.account_id AND r.id = s.receiver_id
    LEFT JOIN carriers c ON c.account_id = s.account_id AND c.id = s.carrier_id
    LEFT JOIN alert_presets p ON p.account_id = s.account_id AND p.id = s.alert_preset_id`;

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);
const ref = (id: string | null, name: string | null): NamedRef | null => (id ? { id, name } : null);

export function presentShipmentListItem(row: ShipmentRow): ShipmentListItem {
  return {
    id: row.id,
    reference: row.reference,
    name: row.name,
    status: row.status,
    template_id: row.template_id,
    origin: { id: row.origin_location_id, name: row.origin_name },
    destination: { id: row.destination_location_id, name: row.destination_name },
    receiver: ref(row.receiver_id, row.receiver_name),
    carrier: ref(row.carrier_id, row.carrier_name),
    alert_preset: ref(row.alert_preset_id, row.alert_preset_name),
    planned_departure_at: iso(row.planned_departure_at),
    planned_arrival_at: iso(row.planned_arrival_at),
    device_ids: row.device_ids,
    started_at: row.started_at.toISOString(),
    arrived_at: iso(row.arrived_at),
    completed_at: iso(row.completed_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The visible (not deleted) shipment of the tenant, or null. */
export async function findShipmentRow(manager: EntityManager, accountId: AccountId, shipmentId: number): Promise<ShipmentRow | null> {
  const rows = (await manager.query(`${SHIPMENT_ROW_SELECT} WHERE s.account_id = $1 AND s.id = $2 AND s.deleted_at IS NULL`, [
    accountId,
    shipmentId,
  ])) as ShipmentRow[];
  return rows[0] ?? null;
}

async function summaryOf(manager: EntityManager, accountId: AccountId, shipmentId: number, now: Date): Promise<ShipmentSummaryRecord> {
  const tracked = trackedPointsQuery({ accountId, shipmentId, now });
  const [points] = (await manager.query(
    `SELECT count(*)::int AS point_count, min(p.temperature)::float8 AS min, max(p.temperature)::float8 AS max,
            round(avg(p.temperature)::numeric, 3)::float8 AS avg
       FROM (${tracked.sql}) p`,
    tracked.params,
  )) as Array<{ point_count: number; min: number | null; max: number | null; avg: number | null }>;
  const [alarms] = (await manager.query(
    `SELECT count(*)::int AS open FROM alarms WHERE account_id = $1 AND shipment_id = $2 AND resolved_at IS NULL`,
    [accountId, shipmentId],
  )) as Array<{ open: number }>;
  return {
    point_count: points.point_count,
    temperature: points.min === null || points.max === null || points.avg === null ? null : { min: points.min, max: points.max, avg: points.avg },
    open_alarms: alarms.open,
  };
}

async function devicesOf(manager: EntityManager, accountId: AccountId, shipmentId: number): Promise<ShipmentDeviceRecord[]> {
  const rows = (await manager.query(
    `SELECT sd.device_id, d.serial_number, l.label, sd.attached_at, sd.detached_at
       FROM shipment_devices sd
       JOIN devices d ON d.id = sd.device_id
       JOIN device_lifecycles l ON l.id = sd.lifecycle_id AND l.account_id = sd.account_id
      WHERE sd.account_id = $1 AND sd.shipment_id = $2
      ORDER BY sd.attached_at, sd.id`,
    [accountId, shipmentId],
  )) as Array<{ device_id: string; serial_number: string; label: string | null; attached_at: Date; detached_at: Date | null }>;
  return rows.map((row) => ({
    device_id: row.device_id,
    serial_number: row.serial_number,
    label: row.label,
    attached_at: row.attached_at.toISOString(),
    detached_at: iso(row.detached_at),
  }));
}

async function eventsOf(manager: EntityManager, accountId: AccountId, shipmentId: number): Promise<{ events: ShipmentEventRecord[]; reached: Set<string> }> {
  const rows = (await manager.query(
    `SELECT kind, location_id, device_id, recorded_at FROM shipment_events
      WHERE account_id = $1 AND shipment_id = $2 ORDER BY recorded_at DESC, id DESC LIMIT $3`,
    [accountId, shipmentId, SHIPMENT_RECORD_EVENT_LIMIT],
  )) as Array<{ kind: ShipmentEventKind; location_id: string | null; device_id: string | null; recorded_at: Date }>;
  const reachedRows = (await manager.query(
    `SELECT DISTINCT location_id FROM shipment_events
      WHERE account_id = $1 AND shipment_id = $2 AND kind IN ('geofence_entry', 'arrival') AND location_id IS NOT NULL`,
    [accountId, shipmentId],
  )) as Array<{ location_id: string }>;
  return {
    events: rows.reverse().map((row) => ({ kind: row.kind, location_id: row.location_id, device_id: row.device_id, recorded_at: row.recorded_at.toISOString() })),
    reached: new Set(reachedRows.map((row) => row.location_id)),
  };
}

/** Builds the full record from a row (inside the caller's transaction when there is one). */
export async function presentShipmentRecord(manager: EntityManager, row: ShipmentRow, now: Date = new Date()): Promise<ShipmentRecord> {
  const { events, reached } = await eventsOf(manager, row.account_id, row.id);
  if (row.arrived_at) reached.add(row.destination_location_id);
  const legs = presentLegs(toStoredLegs(row.transport_legs), { now, reached, completed: row.status === 'completed' });
  const current = activeLeg(legs);
  const vessel = current?.mode === 'sea' ? { mmsi: current.vessel_mmsi, imo: current.vessel_imo } : null;
  return {
    ...presentShipmentListItem(row),
    transport_legs: legs,
    active_transport_leg: current,
    devices: await devicesOf(manager, row.account_id, row.id),
    ais_position: vessel ? await latestVesselPosition(manager, vessel, now) : null,
    summary: await summaryOf(manager, row.account_id, row.id, now),
    events,
  };
}

/** The tenant's shipment record, or null when it does not exist, is deleted or belongs to another account. */
export async function loadShipmentRecord(manager: EntityManager, accountId: AccountId, shipmentId: number, now: Date = new Date()): Promise<ShipmentRecord | null> {
  const row = await findShipmentRow(manager, accountId, shipmentId);
  return row ? presentShipmentRecord(manager, row, now) : null;
}
