import type { EntityManager } from 'typeorm';
import { newId } from '@app/database';
import type { AlarmSeverity } from '../alarms';
import type { GeofenceShape, TrackedGeofence, GeofenceCrossing, GeofenceCrossingSink, GeofenceSource } from '../telemetry';
import { completeShipment } from './shipment-completion';
import { locationAutomations, lockShipment, markShipmentArrived, routeLocations } from './shipments.repository';
import { insertShipmentEvent } from './shipment-events.repository';
import type { AccountId } from '@app/vocabulary';

interface Trigger {
  record_event?: boolean;
  raise_alarm?: boolean;
  alarm_severity?: AlarmSeverity;
  mark_arrival?: boolean;
  complete_shipment?: boolean;
}

interface Automation {
  on_entry?: Trigger;
  on_exit?: Trigger;
}

interface LocationRow {
  id: string;
  name: string;
  geofence: unknown;
  automation: Automation | null;
}

/** A location's stored geofence (`circle` or GeoJSON `polygon`) as the geometry code reads it. */
export function geofenceShapeOf(stored: unknown): GeofenceShape | null {
  const value = (stored ?? {}) as { type?: string; center?: { latitude: number; longitude: number }; radius_m?: number; polygon?: { coordinates?: number[][][] } };
  if (value.type === 'circle' && value.center && typeof value.radius_m === 'number') return { center: value.center, radius_m: value.radius_m };
  if (value.type === 'polygon' && Array.isArray(value.polygon?.coordinates)) return { type: 'Polygon', coordinates: value.polygon.coordinates };
  return null;
}

/**
 * Geofences matter while a device travels: those of the tenant's locations on the route of the
 * device's active shipment, raising GEOFENCE alarms as each location's automation says.
 */
export const SHIPMENT_ROUTE_GEOFENCES: GeofenceSource = {
  async geofencesFor(manager, context) {
    if (context.shipmentId === null) return [];
    const rows = (await routeLocations(manager, context.accountId, context.shipmentId)) as LocationRow[];
    const geofences: TrackedGeofence[] = [];
    for (const row of rows) {
      const shape = geofenceShapeOf(row.geofence);
      if (!shape) continue;
      const entry = row.automation?.on_entry ?? {};
      const exit = row.automation?.on_exit ?? {};
      geofences.push({
        id: row.id,
        name: row.name,
        shape,
        alarmOnEntry: entry.raise_alarm === true,
        alarmOnExit: exit.raise_alarm === true,
        alarmSeverityOnEntry: entry.alarm_severity,
        alarmSeverityOnExit: exit.alarm_severity,
      });
    }
    return geofences;
  },
};

async function recordEvent(manager: EntityManager, crossing: GeofenceCrossing, shipmentId: number, kind: 'geofence_entry' | 'geofence_exit' | 'arrival'): Promise<void> {
  await insertShipmentEvent(manager, crossing.context.accountId, {
    id: newId(),
    shipmentId,
    kind,
    locationId: crossing.geofence.id,
    deviceId: crossing.context.deviceId,
    recordedAt: crossing.recordedAt,
  });
}

async function applyToShipment(manager: EntityManager, accountId: AccountId, shipmentId: number, crossings: GeofenceCrossing[]): Promise<void> {
  // The same lock as the completion endpoint: automation and API never act on a stale status.
  const shipment = await lockShipment(manager, accountId, shipmentId);
  if (!shipment || shipment.status !== 'active') return;
  const locations = (await locationAutomations(manager, accountId, [...new Set(crossings.map((c) => c.geofence.id))])) as Array<{ id: string; automation: Automation | null }>;
  const automation = new Map(locations.map((l) => [l.id, l.automation ?? {}]));
  let arrived = shipment.arrived_at !== null;
  for (const crossing of [...crossings].sort((a, b) => a.recordedAt.getTime() - b.recordedAt.getTime())) {
    const settings = automation.get(crossing.geofence.id);
    if (!settings) continue;
    const entered = crossing.direction === 'entered';
    const trigger = (entered ? settings.on_entry : settings.on_exit) ?? {};
    if (trigger.record_event) await recordEvent(manager, crossing, shipmentId, entered ? 'geofence_entry' : 'geofence_exit');
    if (!entered || crossing.geofence.id !== shipment.destination_location_id) continue;
    if (trigger.mark_arrival && !arrived) {
      arrived = true;
      await markShipmentArrived(manager, accountId, shipmentId, crossing.recordedAt);
      await recordEvent(manager, crossing, shipmentId, 'arrival');
    }
    if (trigger.complete_shipment) {
      await completeShipment(manager, accountId, shipmentId, 'geofence');
      return;
    }
  }
}

/**
 * Entry/exit automation of the route's locations, in the ingestion transaction: `record_event`
 * records a shipment event, `mark_arrival` (destination, entry) records the arrival, and
 * `complete_shipment` (destination, entry) completes the shipment exactly as the endpoint does —
 * once, however many devices arrive. `raise_alarm` is done by the evaluator (see the source).
 */
export const SHIPMENT_GEOFENCE_AUTOMATION: GeofenceCrossingSink = {
  async record(manager, crossings) {
    const byShipment = new Map<number, GeofenceCrossing[]>();
    for (const crossing of crossings) {
      const shipmentId = crossing.context.shipmentId;
      if (shipmentId === null) continue;
      const list = byShipment.get(shipmentId);
      if (list) list.push(crossing);
      else byShipment.set(shipmentId, [crossing]);
    }
    for (const [shipmentId, list] of [...byShipment.entries()].sort(([a], [b]) => a - b)) {
      await applyToShipment(manager, list[0].context.accountId, shipmentId, list);
    }
  },
};
