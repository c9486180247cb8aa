import { GEOFENCE_RADIUS_M, GEOFENCE_TYPES, type CircleGeofence, type GeoJsonPolygon, type Geofence, type GeoPoint, type PolygonGeofence, type Position } from '@app/vocabulary';

export { GEOFENCE_RADIUS_M, GEOFENCE_TYPES, type CircleGeofence, type GeoJsonPolygon, type Geofence, type GeoPoint, type PolygonGeofence, type Position };
