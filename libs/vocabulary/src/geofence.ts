/** A geofence as the API stores it (locations.geofence). GeoJSON positions are [longitude, latitude]. */
export interface GeoPoint {
  latitude: number;
  longitude: number;
}

export type Position = [number, number];

export interface CircleGeofence {
  type: 'circle';
  center: GeoPoint;
  radius_m: number;
}

export interface GeoJsonPolygon {
  type: 'Polygon';
  /** Exactly one closed linear ring (the outer boundary); holes are not supported. */
  coordinates: Position[][];
}

export interface PolygonGeofence {
  type: 'polygon';
  polygon: GeoJsonPolygon;
}

export type Geofence = CircleGeofence | PolygonGeofence;

export const GEOFENCE_TYPES = ['circle', 'polygon'] as const;
export const GEOFENCE_RADIUS_M = { min: 10, max: 100_000 } as const;
