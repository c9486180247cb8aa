import { createHash, randomBytes } from 'node:crypto';

/** The public tracking page lives outside the API base path: `${PUBLIC_BASE_URL}/track/<token>`. */
export const TRACKING_PAGE_PATH = 'track';

/** 256 random bits, base64url: 43 characters. */
export const SHARE_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const newShareToken = (): string => randomBytes(32).toString('base64url');

/** Only this is stored: the raw token exists in the PUT response and in the receiver's link. */
export const hashShareToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
