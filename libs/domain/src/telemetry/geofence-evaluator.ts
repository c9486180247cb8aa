import type { EntityManager } from 'typeorm';
import { type AlarmRecord, raiseAlarm } from '../alarms';
import { detectGeofenceTransitions, type GeoPosition } from './geofence';
import type { GeofenceContext, GeofenceCrossing, GeofenceCrossingSink, GeofenceSource } from './geofence-source';
import type { IngestLifecycle } from './ingest-lifecycles';
import type { TelemetryPoint } from './telemetry-point';

/**
 * Walks the batch's new positions of one lifecycle in time order, starting from the last known
 * position, and reports each geofence crossing (alarms where the geofence asks for one). Points
 * older than the last known position are stored but not walked: that part of the track was
 * already judged when it was the newest.
 */
export async function evaluateGeofences(
  manager: EntityManager,
  lifecycle: IngestLifecycle,
  points: readonly TelemetryPoint[],
  context: GeofenceContext,
  source: GeofenceSource,
  sink: GeofenceCrossingSink,
): Promise<AlarmRecord[]> {
  if (!lifecycle.sensors.location) return [];
  const since = lifecycle.location?.at.getTime() ?? Number.NEGATIVE_INFINITY;
  const isNew = (p: TelemetryPoint): boolean => p.latitude !== null && p.longitude !== null && p.recordedMs > since;
  if (!points.some(isNew)) return [];
  const geofences = await source.geofencesFor(manager, context);
  if (geofences.length === 0) return [];
  // Sorted only when there is something to walk it against.
  const track = points.filter(isNew).sort((a, b) => a.recordedMs - b.recordedMs);

  const crossings: GeofenceCrossing[] = [];
  let previous: GeoPosition | null = lifecycle.location;
  for (const point of track) {
    const position = { latitude: point.latitude as number, longitude: point.longitude as number };
    const transitions = detectGeofenceTransitions(previous, position, geofences);
    const recordedAt = new Date(point.recordedMs);
    for (const geofence of transitions.entered) crossings.push({ context, geofence, direction: 'entered', position, recordedAt });
    for (const geofence of transitions.exited) crossings.push({ context, geofence, direction: 'exited', position, recordedAt });
    previous = position;
  }

  const raised: AlarmRecord[] = [];
  for (const crossing of crossings) {
    const wanted = crossing.direction === 'entered' ? crossing.geofence.alarmOnEntry : crossing.geofence.alarmOnExit;
    if (!wanted) continue;
    const alarm = await raiseAlarm(manager, {
      accountId: context.accountId,
      deviceId: context.deviceId,
      lifecycleId: context.lifecycleId,
      shipmentId: context.shipmentId,
      type: 'GEOFENCE',
      severity: (crossing.direction === 'entered' ? crossing.geofence.alarmSeverityOnEntry : crossing.geofence.alarmSeverityOnExit) ?? 'INFO',
      source: 'GEOFENCE',
      message: `${crossing.direction === 'entered' ? 'Entered' : 'Left'} geofence ${crossing.geofence.name}.`,
      triggeredAt: crossing.recordedAt,
      geofenceId: crossing.geofence.id,
    });
    if (alarm) raised.push(alarm);
  }
  if (crossings.length > 0) await sink.record(manager, crossings);
  return raised;
}
