import { randomBytes } from 'node:crypto';
import { decryptSecret, encryptSecret, generateSigningSecret, SecretDecryptionError } from './secret-box';

describe('signing secret at rest', () => {
  const key = randomBytes(32);
  const endpointId = '018f0000-0000-7000-8000-000000000001';

  it('generates whsec_ + 32 random bytes (standard base64, as Standard Webhooks secrets are)', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });

  it('round-trips, with a fresh IV each time, and never contains the secret', () => {
    const secret = generateSigningSecret();
    const first = encryptSecret(key, secret, endpointId);
    const second = encryptSecret(key, secret, endpointId);
    expect(first).not.toBe(second);
    expect(first).not.toContain(secret.slice(6));
    expect(decryptSecret(key, first, endpointId)).toBe(secret);
    expect(decryptSecret(key, second, endpointId)).toBe(secret);
  });

  it('refuses another key, another endpoint, a tampered or unknown format', () => {
    const stored = encryptSecret(key, 'whsec_abc', endpointId);
    expect(() => decryptSecret(randomBytes(32), stored, endpointId)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(key, stored, '018f0000-0000-7000-8000-000000000002')).toThrow(SecretDecryptionError);
    const raw = Buffer.from(stored.slice(3), 'base64url');
    raw[raw.length - 1] ^= 1;
    expect(() => decryptSecret(key, `v1.${raw.toString('base64url')}`, endpointId)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(key, 'v2.abc', endpointId)).toThrow(SecretDecryptionError);
    expect(() => decryptSecret(key, 'v1.AAAA', endpointId)).toThrow(SecretDecryptionError);
  });
});
