import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { AccountId } from '@app/vocabulary';

/** A refresh draws a new nonce: the link derived from the previous one stops matching at once. */
export const newShareNonce = (): Buffer => randomBytes(16);

/** The key share links are derived with: HKDF-SHA256 of the service's secrets key, for this purpose only. */
export const shareLinkKey = (secretsKey: Buffer): Buffer => Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'coldchain/share-link/v1', 32));

/**
 * The link token of a share: HMAC-SHA256 over the share's identity and nonce, base64url (43
 * characters). Recomputable by the service for every GET; not by anyone holding only the database.
 */
export function deriveShareToken(key: Buffer, share: { accountId: AccountId; shipmentId: number; nonce: Buffer }): string {
  return createHmac('sha256', key).update(`${share.accountId}:${share.shipmentId}:`).update(share.nonce).digest('base64url');
}
