export * from './auth/scopes';
export * from './auth/secret-hash';
export * from './auth/credentials.service';
export * from './auth/credentials.repository';
export * from './accounts/accounts-admin.service';
export * from './accounts/accounts.repository';
export * from './accounts/accounts.service';
export * from './geo';
export * from './users';
export * from './formats';
export * from './alarms/alarm-enums';
export * from './alarms/alarm-record';
export * from './alarms/alarm-writer';
export * from './alarms/alarms.repository';
export * from './alarms/alarms.service';
export * from './devices/device-settings';
export * from './devices/alert-preset-thresholds';
export * from './devices/device-admin.service';
export * from './devices/devices.service';
export { DevicesRepository, type DeviceRow, type MaintenanceRow, type SettingsChange } from './devices/devices.repository';
export { demoDeviceApprovedAt, demoDeviceApprovedAtIfSeeded, seedDemoDeviceRows } from './devices/devices.repository';
export * from './shipments/active-shipment-lookup';
export * from './shipments/shipment-legs';
export * from './shipments/shipment-record';
export * from './shipments/shipment-completion';
export * from './shipments/shipment-geofences';
export * from './shipments/share-link';
export * from './shipments/tracked-points';
export * from './shipments/shipments.repository';
export * from './shipments/shipment-limits';
export * from './shipments/shipment-errors';
export * from './shipments/share-token';
export * from './shipments/shipment-references';
export { type CreateShipmentInput, type ReplaceShipmentInput, type ShipmentLegInput } from './shipments/shipment-fields';
export * from './shipments/shipments.service';
export * from './shipments/share.service';
export * from './shipments/tracking.service';
export * from './shipments/shared-shipment.service';
export * from './shipment-templates/shipment-template-references';
export * from './shipment-templates/shipment-templates.rules';
export * from './shipment-templates/shipment-templates.service';
export * from './ais/ais-position';
export * from './ais/ais-ingest.service';
export * from './ais/ais-topology';
export * from './ais/vessel-positions';
export { seedDemoVesselTrack } from './ais/ais.repository';
export * from './reports/mean-kinetic-temperature';
export * from './reports/series-stats';
export * from './reports/report-record';
export * from './reports/report-store';
export * from './reports/report-jobs';
export * from './reports/shipment-report';
export * from './reports/device-report';
export * from './reports/report-thresholds';
export { existingReportIds } from './reports/reports.repository';
export * from './reports/reports.service';
export * from './reports/report-file.reader';
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
export * from './telemetry/telemetry-buckets';
export * from './telemetry/telemetry-aggregation';
export * from './telemetry/telemetry-range';
export * from './telemetry/telemetry.service';
export { TelemetryRepository, type BucketRow, type PointRow, type TelemetryScope } from './telemetry/telemetry.repository';
export { seedDemoTelemetryRows } from './telemetry/telemetry.repository';
export * from './telemetry/threshold-rules';
export * from './catalogue/catalogue.repository';
export * from './catalogue/catalogue-family';
export * from './catalogue/catalogue.service';
export * from './catalogue/same-tenant-references';
export * from './locations/locations.rules';
export * from './locations/locations.service';
export * from './carriers/carriers.rules';
export * from './carriers/carriers.service';
export * from './receivers/receivers.rules';
export * from './receivers/receivers.service';
export * from './alert-presets/alert-presets.rules';
export * from './alert-presets/alert-presets.service';
export * from './errors/api-error';
