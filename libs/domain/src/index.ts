export * from './auth/scopes';
export * from './auth/secret-hash';
export * from './auth/credentials.service';
export * from './auth/credentials.repository';
export * from './accounts/accounts-admin.service';
export * from './accounts/accounts.repository';
export * from './demo/demo-seed';
export * from './geo';
export * from './users';
export * from './formats';
export * from './demo/demo-devices';
export * from './demo/demo-shipments';
export * from './alarms/alarm-enums';
export * from './alarms/alarm-record';
export * from './alarms/alarm-writer';
export * from './alarms/alarms.repository';
export * from './devices/device-settings';
export * from './devices/alert-preset-thresholds';
export * from './devices/device-admin.service';
export { DevicesRepository, type DevicePageRequest, type DeviceRow, type MaintenanceRow, type SettingsChange } from './devices/devices.repository';
export * from './shipments/active-shipment-lookup';
export * from './shipments/shipment-legs';
export * from './shipments/shipment-record';
export * from './shipments/shipment-completion';
export * from './shipments/shipment-geofences';
export * from './shipments/share-link';
export * from './shipments/tracked-points';
export * from './shipments/shipments.repository';
export * from './ais/ais-position';
export * from './ais/ais-ingest.service';
export * from './ais/ais-topology';
export * from './ais/vessel-positions';
export * from './reports/mean-kinetic-temperature';
export * from './reports/series-stats';
export * from './reports/report-record';
export * from './reports/report-store';
export * from './reports/report-jobs';
export * from './reports/shipment-report';
export * from './reports/device-report';
export * from './reports/report-thresholds';
export {
  type GeoPosition,
  type CircleShape,
  type PolygonShape,
  type MultiPolygonShape,
  type GeofenceShape,
  type Geofence as TrackedGeofence,
  type GeofenceTransitions,
  distanceMeters,
  shapeContains,
  detectGeofenceTransitions,
} from './telemetry/geofence';
export * from './telemetry/geofence-source';
export * from './telemetry/ingest-topology';
export * from './telemetry/ingest-wiring';
export * from './telemetry/telemetry-point';
export * from './telemetry/telemetry-partitions';
export * from './telemetry/telemetry-ingest.service';
export { TelemetryRepository, type BucketRow, type PointRow, type TelemetryScope } from './telemetry/telemetry.repository';
export * from './telemetry/threshold-rules';
export * from './catalogue/catalogue.repository';
