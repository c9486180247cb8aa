export * from './geofence';
export * from './polygon-validation';
