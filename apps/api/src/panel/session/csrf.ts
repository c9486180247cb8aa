import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The hidden form field every panel form carries. */
export const CSRF_FIELD = '_csrf';

/** Constant-time comparison of a submitted token with the expected one (any length, any input). */
export function tokensMatch(submitted: unknown, expected: string): boolean {
  if (typeof submitted !== 'string' || submitted.length === 0 || expected.length === 0) return false;
  // Hashing first gives equal lengths, so timingSafeEqual never throws and leaks no length.
  const a = createHash('sha256').update(submitted).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Before sign-in there is no session to bind a token to: the sign-in form uses a signed double
 * submit instead. The cookie holds a random nonce; the form holds HMAC(key, nonce). A cross-site
 * page can neither read the cookie nor compute the HMAC (it prevents login CSRF).
 */
export const newSignInNonce = (): string => randomBytes(32).toString('base64url');

export const signInToken = (key: Buffer, nonce: string): string => createHmac('sha256', key).update(`panel-sign-in:${nonce}`).digest('base64url');
