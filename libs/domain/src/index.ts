/**
 * The domain's front door: one door per family (each folder's index.ts exports its services and
 * types, never its repositories). Apps import from here; a family uses another through its door.
 */
export * from './auth';
export * from './accounts';
export * from './geo';
export * from './users';
export * from './alarms';
export * from './devices';
export * from './shipments';
export * from './shipment-templates';
export * from './ais';
export * from './reports';
export * from './telemetry';
export * from './catalogue';
export * from './locations';
export * from './carriers';
export * from './receivers';
export * from './alert-presets';
export * from './errors';
