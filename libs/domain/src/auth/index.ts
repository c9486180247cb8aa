/** Front door of the auth family: API credentials (client-credential exchange, secret hashing). Services and types only; its repositories stay inside the folder. */
export * from './secret-hash';
export * from './credentials.service';
export type { CredentialLookupRow } from './credentials.repository';
