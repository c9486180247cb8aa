// The webhook receiver kit: the request format, signing and verification of webhook requests.
// No database, no framework and no other project library (only node:crypto), so a receiver can
// copy these files as they are. The delivery side (libs/webhooks, apps/dispatcher) signs with it.
export * from './signature';
export * from './headers';
export * from './verify-request';
export * from './standard-webhooks';
