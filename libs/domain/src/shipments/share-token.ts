import { createHash } from 'node:crypto';

/** The public tracking page lives outside the API base path: `${PUBLIC_BASE_URL}/track/<token>`. */
export const TRACKING_PAGE_PATH = 'track';

/** A link token: an HMAC-SHA256, base64url: 43 characters. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The lookup key of a link: the database keeps this hash (and the nonce), never the token. */
export const hashShareToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
