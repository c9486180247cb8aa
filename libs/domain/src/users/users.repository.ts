import type { User, UserInvitation } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { USER_QUERIES as Q } from './users.queries';

/** An invitation e-mail leased by one sender, with what the message needs. */
export interface ClaimedInvitationEmail {
  invitation_id: string;
  sealed_link: string | null;
  attempts: number;
  email: string;
  full_name: string;
  role: string;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  account_name: string;
  account_status: string;
}

// ---- users ----

/** The account's customer users after `after` in id order (keyset), at most `take`. */
export function listCustomerUsers(db: Db, accountId: AccountId, after: string | undefined, take: number): Promise<User[]> {
  return sql.rows<User>(db, Q.listCustomerUsers, [accountId, after ?? null, take]);
}

/** One customer user of the account, or null; `lock` takes a row lock (inside a transaction). */
export function findCustomerUser(db: Db, accountId: AccountId, userId: string, lock = false): Promise<User | null> {
  return sql.first<User>(db, lock ? Q.findCustomerUserForUpdate : Q.findCustomerUser, [accountId, userId]);
}

/** Stores the user's profile fields and role as they are on `user`; answers the stored user. */
export async function updateCustomerUser(db: Db, accountId: AccountId, user: Pick<User, 'id' | 'fullName' | 'phone' | 'locale' | 'role'>): Promise<User> {
  const row = await sql.first<User>(db, Q.updateCustomerUser, [accountId, user.id, user.fullName, user.phone, user.locale, user.role]);
  if (!row) throw new Error('the user update found no row');
  return row;
}

export async function deactivateCustomerUser(db: Db, accountId: AccountId, userId: string, at: Date): Promise<void> {
  await sql.run(db, Q.deactivateCustomerUser, [accountId, userId, at]);
}

/** A new active customer user of the account. */
export async function insertCustomerUser(
  db: Db,
  accountId: AccountId,
  values: Pick<User, 'id' | 'email' | 'fullName' | 'role' | 'passwordHash'>,
): Promise<User> {
  const row = await sql.first<User>(db, Q.insertCustomerUser, [accountId, values.id, values.email, values.fullName, values.role, values.passwordHash]);
  if (!row) throw new Error('the user insert returned no row');
  return row;
}

/** The user with this address (case-insensitive), in any account or none. */
export function findUserByEmail(db: Db, email: string): Promise<User | null> {
  return sql.first<User>(db, Q.findUserByEmail, [email]);
}

/** E-mail addresses are unique across the platform (staff and other accounts included). */
export async function emailTaken(db: Db, email: string): Promise<boolean> {
  return (await sql.first<{ taken: boolean }>(db, Q.emailTaken, [email]))?.taken === true;
}

// ---- invitations ----

/** The account's invitations that are not revoked, after `after` in id order (keyset), at most `take`. */
export function listInvitations(db: Db, accountId: AccountId, after: string | undefined, take: number): Promise<UserInvitation[]> {
  return sql.rows<UserInvitation>(db, Q.listInvitations, [accountId, after ?? null, take]);
}

/** Whether the address (lower case) has a pending (not accepted, revoked or expired) invitation to the account. */
export async function pendingInvitationExists(db: Db, accountId: AccountId, email: string): Promise<boolean> {
  return (await sql.first<{ found: boolean }>(db, Q.pendingInvitationExists, [accountId, email]))?.found === true;
}

/** A not-revoked invitation of the account, row-locked (inside a transaction), or null. */
export function findUnrevokedInvitationForUpdate(db: Db, accountId: AccountId, invitationId: string): Promise<UserInvitation | null> {
  return sql.first<UserInvitation>(db, Q.findUnrevokedInvitationForUpdate, [accountId, invitationId]);
}

/** The invitation of a link (by its token's hash, globally unique), or null; `lock` takes a row lock. */
export function findInvitationByTokenHash(db: Db, tokenHash: string, lock: boolean): Promise<UserInvitation | null> {
  return sql.first<UserInvitation>(db, lock ? Q.findInvitationByTokenHashForUpdate : Q.findInvitationByTokenHash, [tokenHash]);
}

export async function insertInvitation(
  db: Db,
  accountId: AccountId,
  values: Pick<UserInvitation, 'id' | 'email' | 'fullName' | 'role' | 'tokenHash' | 'createdByCredentialId' | 'createdAt' | 'expiresAt'>,
): Promise<UserInvitation> {
  const row = await sql.first<UserInvitation>(db, Q.insertInvitation, [
    accountId,
    values.id,
    values.email,
    values.fullName,
    values.role,
    values.tokenHash,
    values.createdByCredentialId,
    values.createdAt,
    values.expiresAt,
  ]);
  if (!row) throw new Error('the invitation insert returned no row');
  return row;
}

export async function revokeInvitation(db: Db, accountId: AccountId, invitationId: string, at: Date): Promise<void> {
  await sql.run(db, Q.revokeInvitation, [accountId, invitationId, at]);
}

export async function acceptInvitation(db: Db, accountId: AccountId, invitationId: string, at: Date, userId: string): Promise<void> {
  await sql.run(db, Q.acceptInvitation, [accountId, invitationId, at, userId]);
}

/** Serialises concurrent invitations of one address to one account until the transaction ends. */
export async function lockInvitationAddress(db: Db, accountId: AccountId, email: string): Promise<void> {
  await sql.run(db, Q.lockInvitationAddress, [`user-invitation:${accountId}:${email}`]);
}

// ---- invitation e-mails ----

export async function insertInvitationEmail(db: Db, invitationId: string, sealedLink: string): Promise<void> {
  await sql.run(db, Q.enqueueInvitationEmail, [invitationId, sealedLink]);
}

/** Leases up to `limit` due e-mails (of every account, or only `invitationId`'s) for `leaseSeconds`. */
export function claimDueInvitationEmails(db: Db, limit: number, invitationId: string | null, leaseSeconds: number): Promise<ClaimedInvitationEmail[]> {
  return sql.rows<ClaimedInvitationEmail>(db, Q.claimDueInvitationEmails, [limit, invitationId, leaseSeconds]);
}

export async function markInvitationEmailSent(db: Db, invitationId: string): Promise<void> {
  await sql.run(db, Q.markInvitationEmailSent, [invitationId]);
}

export async function retryInvitationEmail(db: Db, invitationId: string, delaySeconds: number, lastError: string): Promise<void> {
  await sql.run(db, Q.retryInvitationEmail, [invitationId, delaySeconds, lastError]);
}

export async function releaseInvitationEmail(db: Db, invitationId: string): Promise<void> {
  await sql.run(db, Q.releaseInvitationEmail, [invitationId]);
}

export async function giveUpInvitationEmail(db: Db, invitationId: string, lastError: string): Promise<void> {
  await sql.run(db, Q.giveUpInvitationEmail, [invitationId, lastError]);
}
