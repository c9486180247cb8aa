import { createHash, randomBytes } from 'node:crypto';

/** The hosted password page, outside the API base path. */
export const INVITATION_PAGE_PATH = 'invitations/accept';

export const INVITATION_LIFETIME_DAYS = 7;

/** 32 random bytes, base64url: 43 characters. */
export const generateInvitationToken = (): string => randomBytes(32).toString('base64url');

export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Only this hash is stored; a leaked table does not let anyone accept an invitation. */
export const hashInvitationToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const invitationLink = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl}/${INVITATION_PAGE_PATH}/?token=${encodeURIComponent(token)}`;
