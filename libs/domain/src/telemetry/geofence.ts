/** Pure geometry of geofence entry/exit: no I/O, unit-tested on its own. */
import type { AlarmSeverity } from '../alarms';

export interface GeoPosition {
  latitude: number;
  longitude: number;
}

export interface CircleShape {
  center: GeoPosition;
  radius_m: number;
}

/** GeoJSON geometry: positions are [longitude, latitude]; the first ring is the outline, the others holes. */
export interface PolygonShape {
  type: 'Polygon';
  coordinates: number[][][];
}

export interface MultiPolygonShape {
  type: 'MultiPolygon';
  coordinates: number[][][][];
}

export type GeofenceShape = CircleShape | PolygonShape | MultiPolygonShape;

/** A geofence as ingestion checks it: a location's shape, read from `@app/vocabulary`'s stored `Geofence`, with the location's alarm settings. */
export interface TrackedGeofence {
  id: string;
  name: string;
  shape: GeofenceShape;
  /** Raise a GEOFENCE alarm when the device enters / leaves (the location's automation settings). */
  alarmOnEntry: boolean;
  alarmOnExit: boolean;
  /** Severity of those alarms (the location's `alarm_severity`); INFO when not given. */
  alarmSeverityOnEntry?: AlarmSeverity;
  alarmSeverityOnExit?: AlarmSeverity;
}

export interface GeofenceTransitions {
  entered: TrackedGeofence[];
  exited: TrackedGeofence[];
}

const EARTH_RADIUS_M = 6_371_008.8;
const radians = (degrees: number): number => (degrees * Math.PI) / 180;

/** Great-circle distance (haversine). */
export function distanceMeters(a: GeoPosition, b: GeoPosition): number {
  const dLat = radians(b.latitude - a.latitude);
  const dLon = radians(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(a.latitude)) * Math.cos(radians(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Ray casting on [lon, lat] pairs; adequate for geofences a few kilometres wide. */
function ringContains(ring: number[][], { latitude: y, longitude: x }: GeoPosition): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function polygonContains(rings: number[][][], position: GeoPosition): boolean {
  const [outline, ...holes] = rings;
  return outline !== undefined && ringContains(outline, position) && !holes.some((hole) => ringContains(hole, position));
}

export function shapeContains(shape: GeofenceShape, position: GeoPosition): boolean {
  if ('center' in shape) return distanceMeters(shape.center, position) <= shape.radius_m;
  if (shape.type === 'Polygon') return polygonContains(shape.coordinates, position);
  return shape.coordinates.some((polygon) => polygonContains(polygon, position));
}

/**
 * Which geofences a move from `previous` to `next` enters and leaves. Without a previous
 * position nothing is reported: the device's earlier side of the boundary is unknown.
 */
export function detectGeofenceTransitions(previous: GeoPosition | null, next: GeoPosition, geofences: readonly TrackedGeofence[]): GeofenceTransitions {
  const transitions: GeofenceTransitions = { entered: [], exited: [] };
  if (!previous) return transitions;
  for (const geofence of geofences) {
    const wasInside = shapeContains(geofence.shape, previous);
    const isInside = shapeContains(geofence.shape, next);
    if (!wasInside && isInside) transitions.entered.push(geofence);
    if (wasInside && !isInside) transitions.exited.push(geofence);
  }
  return transitions;
}
