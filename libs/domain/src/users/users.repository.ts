import { IsNull } from 'typeorm';
import { User, UserInvitation } from '@app/database';
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

/** Customer users of one account: platform staff and superusers are never among them. */
function customerUsers(db: Db, accountId: AccountId) {
  return db
    .getRepository(User)
    .createQueryBuilder('user')
    .where('user.account_id = :accountId', { accountId })
    .andWhere('NOT user.is_platform_staff')
    .andWhere('NOT user.is_superuser');
}

/** The account's customer users after `after` in id order (keyset), at most `take`. */
export function listCustomerUsers(db: Db, accountId: AccountId, after: string | undefined, take: number): Promise<User[]> {
  const query = customerUsers(db, accountId).orderBy('user.id', 'ASC').take(take);
  if (after !== undefined) query.andWhere('user.id > :after', { after });
  return query.getMany();
}

/** One customer user of the account, or null; `lock` takes a row lock (inside a transaction). */
export function findCustomerUser(db: Db, accountId: AccountId, userId: string, lock = false): Promise<User | null> {
  const query = customerUsers(db, accountId).andWhere('user.id = :userId', { userId });
  if (lock) query.setLock('pessimistic_write');
  return query.getOne();
}

export function saveUser(db: Db, user: User): Promise<User> {
  return db.getRepository(User).save(user);
}

export function insertUser(db: Db, values: Partial<User>): Promise<User> {
  const repository = db.getRepository(User);
  return repository.save(repository.create(values));
}

/** The user with this address (case-insensitive), in any account or none. */
export function findUserByEmail(db: Db, email: string): Promise<User | null> {
  return db.getRepository(User).createQueryBuilder('user').where('lower(user.email) = lower(:email)', { email }).getOne();
}

/** E-mail addresses are unique across the platform (staff and other accounts included). */
export function emailTaken(db: Db, email: string): Promise<boolean> {
  return db.getRepository(User).createQueryBuilder('user').where('lower(user.email) = lower(:email)', { email }).getExists();
}

export async function seedDemoUser(
  db: Db,
  user: { id: string; accountId: string; email: string; fullName: string; role: string | null; staff: boolean },
): Promise<void> {
  await sql.run(db, Q.seedDemoUser, [user.id, user.accountId, user.email, user.fullName, user.role, user.staff]);
}

// ---- invitations ----

/** The account's invitations that are not revoked, after `after` in id order (keyset), at most `take`. */
export function listInvitations(db: Db, accountId: AccountId, after: string | undefined, take: number): Promise<UserInvitation[]> {
  const query = db
    .getRepository(UserInvitation)
    .createQueryBuilder('invitation')
    .where('invitation.account_id = :accountId', { accountId })
    .andWhere('invitation.revoked_at IS NULL')
    .orderBy('invitation.id', 'ASC')
    .take(take);
  if (after !== undefined) query.andWhere('invitation.id > :after', { after });
  return query.getMany();
}

/** Whether the address has a pending (not accepted, revoked or expired) invitation to the account. */
export function pendingInvitationExists(db: Db, accountId: AccountId, email: string): Promise<boolean> {
  return db
    .getRepository(UserInvitation)
    .createQueryBuilder('invitation')
    .where('invitation.account_id = :accountId', { accountId })
    .andWhere('lower(invitation.email) = :email', { email })
    .andWhere('invitation.accepted_at IS NULL AND invitation.revoked_at IS NULL AND invitation.expires_at > now()')
    .getExists();
}

/** A not-revoked invitation of the account, row-locked (inside a transaction), or null. */
export function findUnrevokedInvitationForUpdate(db: Db, accountId: AccountId, invitationId: string): Promise<UserInvitation | null> {
  return db.getRepository(UserInvitation).findOne({
    where: { accountId, id: invitationId, revokedAt: IsNull() },
    lock: { mode: 'pessimistic_write' },
  });
}

/** The invitation of a link (by its token's hash, globally unique), or null; `lock` takes a row lock. */
export function findInvitationByTokenHash(db: Db, tokenHash: string, lock: boolean): Promise<UserInvitation | null> {
  return db.getRepository(UserInvitation).findOne({
    where: { tokenHash },
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
}

export function insertInvitation(db: Db, values: Partial<UserInvitation>): Promise<UserInvitation> {
  const repository = db.getRepository(UserInvitation);
  return repository.save(repository.create(values));
}

export function saveInvitation(db: Db, invitation: UserInvitation): Promise<UserInvitation> {
  return db.getRepository(UserInvitation).save(invitation);
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
