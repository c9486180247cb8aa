import { createHash, createHmac, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';

/** PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface AuditExportKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as SPKI PEM: what an inspector (or openssl) verifies with. */
  publicKeyPem: string;
  /** SHA-256 of the public key (DER), hex: printed in each export so the key can be matched. */
  fingerprint: string;
}

/**
 * The Ed25519 key pair that signs audit exports, derived from SECRETS_KEY (its hashed form in
 * AppConfig.secretsKey) so that no further secret has to be managed. Rotating SECRETS_KEY changes
 * it: keep the public key (`audit:export-key`) with the exports it verifies.
 */
export function auditExportKeys(secretsKey: Buffer): AuditExportKeys {
  const seed = createHmac('sha256', secretsKey).update('audit-export-ed25519/v1').digest();
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return {
    privateKey,
    publicKey,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    fingerprint: createHash('sha256').update(der).digest('hex'),
  };
}

/** The detached signature of an export: raw Ed25519 (64 bytes) over the file's exact bytes, as `openssl pkeyutl -rawin` checks it. */
export function signAuditExport(file: Buffer, keys: AuditExportKeys): Buffer {
  return sign(null, file, keys.privateKey);
}

/** True when `signature` is this key's signature of exactly these bytes. */
export function verifyAuditExport(file: Buffer, signature: Buffer, publicKey: KeyObject): boolean {
  return signature.length === 64 && verify(null, file, publicKey, signature);
}
