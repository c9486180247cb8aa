/** Front door of the telemetry family: telemetry (ingestion, thresholds, geofence evaluation, range queries). Services and types only; its repositories stay inside the folder. */
export {
  type GeoPosition,
  type CircleShape,
  type PolygonShape,
  type MultiPolygonShape,
  type GeofenceShape,
  type TrackedGeofence,
  type GeofenceTransitions,
  distanceMeters,
  shapeContains,
  detectGeofenceTransitions,
} from './geofence';
export * from './geofence-source';
export * from './batch-message';
export * from './ingest-topology';
export * from './active-shipment-lookup';
export * from './ingest-collaborators';
export * from './telemetry-point';
export * from './packed-points';
export * from './telemetry-partitions';
export * from './telemetry-ingest.service';
export * from './telemetry-buckets';
export * from './telemetry-aggregation';
export * from './telemetry-range';
export * from './telemetry.service';
export * from './threshold-rules';
export type { BucketRow, PointRow, TelemetryScope } from './telemetry.repository';
