import type { DataSource } from 'typeorm';
import { newId, type UserInvitation } from '@app/database';
import type { Db } from '@app/database/sql';
import { enqueueInvitationEmail } from './invitation-email-outbox';
import { generateInvitationToken, hashInvitationToken, INVITATION_LIFETIME_DAYS, invitationLink } from './invitation-link';
import type { Role } from '@app/vocabulary';
import type { AccountId } from '@app/vocabulary';
import { findUserByEmail, insertInvitation, lockInvitationAddress, pendingInvitationExists } from './users.repository';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface NewInvitation {
  accountId: AccountId;
  /** Lower case. */
  email: string;
  fullName: string;
  role: Role;
  /** The API credential that invited; null when the platform did (ops CLI). */
  createdByCredentialId: string | null;
  /**
   * `email`: the invitation e-mail is queued in the same transaction and sent after commit
   * (InvitationEmailOutbox). `caller`: nothing is queued; the caller hands the link over.
   */
  delivery: 'email' | 'caller';
  /**
   * Whether an address that belongs to a user of another account (or to platform staff) is
   * refused as `user_exists`. The public API answers as for a fresh invitation instead, so that it
   * never tells a tenant who uses the platform; the hosted page then says the address has an
   * account. The platform's own CLI may know.
   */
  refuseAddressesUsedElsewhere: boolean;
}

export interface CreatedInvitation {
  invitation: UserInvitation;
  /** Contains the token: for `delivery: 'caller'` only; never logged. */
  link: string;
}

/** The address already belongs to a user, or has a pending invitation to this account. */
export class InvitationConflictError extends Error {
  constructor(readonly code: 'user_exists' | 'already_invited') {
    super(code);
  }
}

/** Where the address is in use: this account, elsewhere on the platform, or nowhere. */
async function addressUse(manager: Db, email: string, accountId: AccountId): Promise<'this_account' | 'elsewhere' | null> {
  const user = await findUserByEmail(manager, email);
  if (!user) return null;
  return user.accountId === accountId ? 'this_account' : 'elsewhere';
}

/**
 * Creates an invitation and, for `delivery: 'email'`, queues its e-mail in the same transaction:
 * no network call runs inside it, and the message goes out after commit with retries. The
 * advisory lock serialises concurrent invitations of one address to one account. Which roles a
 * caller may grant is the caller's rule (the API never grants COMPANY_ADMIN; the platform may).
 */
export async function createInvitation(dataSource: DataSource, secretsKey: Buffer, publicBaseUrl: string, input: NewInvitation): Promise<CreatedInvitation> {
  const token = generateInvitationToken();
  return dataSource.transaction(async (manager) => {
    await lockInvitationAddress(manager, input.accountId, input.email);
    const use = await addressUse(manager, input.email, input.accountId);
    if (use === 'this_account' || (use === 'elsewhere' && input.refuseAddressesUsedElsewhere)) throw new InvitationConflictError('user_exists');
    const pending = await pendingInvitationExists(manager, input.accountId, input.email);
    if (pending) throw new InvitationConflictError('already_invited');
    const createdAt = new Date();
    const invitation = await insertInvitation(manager, input.accountId, {
      id: newId(),
      email: input.email,
      fullName: input.fullName,
      role: input.role,
      tokenHash: hashInvitationToken(token),
      createdByCredentialId: input.createdByCredentialId,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + INVITATION_LIFETIME_DAYS * DAY_MS),
    });
    if (input.delivery === 'email') await enqueueInvitationEmail(manager, secretsKey, invitation.id, token);
    return { invitation, link: invitationLink(publicBaseUrl, token) };
  });
}
