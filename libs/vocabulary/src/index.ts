/**
 * The shared vocabulary: framework-free names, unions and constants every layer uses — the
 * entities (libs/database), the domain, both apps. It imports nothing of the project.
 */
export * from './roles';
export * from './scopes';
export * from './geofence';
export * from './formats';
export * from './account-id';
export * from './keyset';
export * from './error-codes';
export * from './typed-time';
export * from './csv';
