import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * `whsec_` + 32 random bytes in standard base64 (44 characters, one `=`). The whole string is the
 * HMAC key of the `X-Service-Signature` (spec §6.4); the Standard Webhooks format reads the same
 * string as its libraries do (the bytes after the prefix), so one secret serves both formats and
 * an endpoint can switch format without a new one. (Secrets issued before were base64url.)
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * AES-256-GCM under SECRETS_KEY. The endpoint id is authenticated data, so a ciphertext copied
 * onto another endpoint's row does not decrypt. Stored as `v1.<base64url(iv | tag | ciphertext)>`.
 */
export function encryptSecret(key: Buffer, secret: string, endpointId: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(endpointId));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64url')}`;
}

export class SecretDecryptionError extends Error {}

export function decryptSecret(key: Buffer, stored: string, endpointId: string): string {
  const [format, payload] = stored.split('.');
  if (format !== FORMAT || !payload) throw new SecretDecryptionError('unknown signing secret format');
  const raw = Buffer.from(payload, 'base64url');
  if (raw.length <= IV_BYTES + TAG_BYTES) throw new SecretDecryptionError('truncated signing secret');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(endpointId));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError('signing secret does not decrypt (SECRETS_KEY changed?)');
  }
}
