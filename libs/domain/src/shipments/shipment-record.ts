import type { Db } from '@app/database/sql';
import type { EntityManager } from 'typeorm';
import { latestVesselPosition, type VesselPositionRecord } from '../ais';
import { activeLeg, presentLegs, toStoredLegs, type ShipmentLegRecord } from './shipment-legs';
import { findShipmentRow, openShipmentAlarms, type ShipmentRow } from './shipments.repository';
import { shipmentDeviceRows } from './shipment-devices.repository';
import { latestShipmentEvents, reachedLocationIds } from './shipment-events.repository';
import { trackedSummary } from './tracked-points.repository';
import type { ShipmentEventKind, ShipmentStatus } from './shipment-status';
import type { AccountId } from '@app/vocabulary';

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

async function summaryOf(manager: Db, accountId: AccountId, shipmentId: number, now: Date): Promise<ShipmentSummaryRecord> {
  const points = await trackedSummary(manager, { accountId, shipmentId, now });
  return {
    point_count: points.point_count,
    temperature: points.min === null || points.max === null || points.avg === null ? null : { min: points.min, max: points.max, avg: points.avg },
    open_alarms: await openShipmentAlarms(manager, accountId, shipmentId),
  };
}

async function devicesOf(manager: Db, accountId: AccountId, shipmentId: number): Promise<ShipmentDeviceRecord[]> {
  const rows = await shipmentDeviceRows(manager, accountId, shipmentId);
  return rows.map((row) => ({
    device_id: row.device_id,
    serial_number: row.serial_number,
    label: row.label,
    attached_at: row.attached_at.toISOString(),
    detached_at: iso(row.detached_at),
  }));
}

async function eventsOf(manager: Db, accountId: AccountId, shipmentId: number): Promise<{ events: ShipmentEventRecord[]; reached: Set<string> }> {
  const rows = await latestShipmentEvents(manager, accountId, shipmentId, SHIPMENT_RECORD_EVENT_LIMIT);
  const reached = await reachedLocationIds(manager, accountId, shipmentId);
  return {
    events: rows.reverse().map((row) => ({ kind: row.kind, location_id: row.location_id, device_id: row.device_id, recorded_at: row.recorded_at.toISOString() })),
    reached: new Set(reached),
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

/** A `shipments` row with the names it references: what the record is presented from. */
export type { ShipmentRow };

/** The shipment's row with the names it references, or null (reports build on it). */
export function loadShipmentRow(db: Db, accountId: AccountId, shipmentId: number): Promise<ShipmentRow | null> {
  return findShipmentRow(db, accountId, shipmentId);
}
