import { GEOFENCE_RADIUS_M, GEOFENCE_TYPES, type CircleGeofence, type GeoJsonPolygon, type Geofence, type GeoPoint, type PolygonGeofence, type Position } from '@app/vocabulary';

export { GEOFENCE_RADIUS_M, GEOFENCE_TYPES, type CircleGeofence, type GeoJsonPolygon, type Geofence, type GeoPoint, type PolygonGeofence, type Position };

/** Mean Earth radius (IUGG), metres. */
const EARTH_RADIUS_M = 6_371_008.8;
const toRadians = (degrees: number): number => (degrees * Math.PI) / 180;

/** Great-circle distance in metres (haversine). */
export function haversineDistanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = toRadians(lat2 - lat1);
  const dLon = toRadians(lon2 - lon1);
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(toRadians(lat1)) * Math.cos(toRadians(lat2)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/**
 * Ray casting on the [longitude, latitude] plane. Good for geofence-sized polygons; a polygon that
 * crosses the antimeridian is not supported (validation does not forbid it, it just will not match).
 */
export function pointInRing(ring: readonly Position[], latitude: number, longitude: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > latitude !== yj > latitude && longitude < ((xj - xi) * (latitude - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Whether a point lies inside a geofence (on a circle's boundary counts as inside). */
export function pointInGeofence(geofence: Geofence, latitude: number, longitude: number): boolean {
  if (geofence.type === 'circle') {
    const { center, radius_m } = geofence;
    return haversineDistanceM(center.latitude, center.longitude, latitude, longitude) <= radius_m;
  }
  return geofence.polygon.coordinates.length > 0 && pointInRing(geofence.polygon.coordinates[0], latitude, longitude);
}
