import type { DataSource, EntityManager } from 'typeorm';
import { Account, newId, User, UserInvitation } from '@app/database';
import type { InvitationSender } from './invitation-mail';
import { generateInvitationToken, hashInvitationToken, INVITATION_LIFETIME_DAYS, invitationLink } from './invitation-link';
import { ROLES, type Role } from './roles';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface NewInvitation {
  accountId: string;
  /** Lower case. */
  email: string;
  fullName: string;
  role: Role;
  /** The API credential that invited; null when the platform did (ops CLI). */
  createdByCredentialId: string | null;
}

/** The address already belongs to a user, or has a pending invitation to this account. */
export class InvitationConflictError extends Error {
  constructor(readonly code: 'user_exists' | 'already_invited') {
    super(code);
  }
}

/** SMTP refused the message: nothing was stored. */
export class InvitationDeliveryError extends Error {
  constructor(
    readonly invitationId: string,
    readonly reason: string,
  ) {
    super(`invitation e-mail for invitation ${invitationId} failed: ${reason}`);
  }
}

/** E-mail addresses are unique across the platform (staff and other accounts included). */
export function emailTaken(manager: EntityManager, email: string): Promise<boolean> {
  return manager.getRepository(User).createQueryBuilder('user').where('lower(user.email) = lower(:email)', { email }).getExists();
}

/**
 * Creates an invitation and sends its e-mail inside one transaction: when SMTP refuses the
 * message nothing is stored and the caller may retry. The advisory lock serialises concurrent
 * invitations of one address to one account. Which roles a caller may grant is the caller's rule
 * (the API never grants COMPANY_ADMIN; the platform may).
 */
export async function createInvitation(dataSource: DataSource, sender: InvitationSender, publicBaseUrl: string, input: NewInvitation): Promise<UserInvitation> {
  const token = generateInvitationToken();
  return dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`user-invitation:${input.accountId}:${input.email}`]);
    if (await emailTaken(manager, input.email)) throw new InvitationConflictError('user_exists');
    const pending = await manager
      .getRepository(UserInvitation)
      .createQueryBuilder('invitation')
      .where('invitation.account_id = :accountId', { accountId: input.accountId })
      .andWhere('lower(invitation.email) = :email', { email: input.email })
      .andWhere('invitation.accepted_at IS NULL AND invitation.revoked_at IS NULL AND invitation.expires_at > now()')
      .getExists();
    if (pending) throw new InvitationConflictError('already_invited');
    const account = await manager.getRepository(Account).findOneByOrFail({ id: input.accountId });
    const createdAt = new Date();
    const repository = manager.getRepository(UserInvitation);
    const invitation = await repository.save(
      repository.create({
        id: newId(),
        accountId: input.accountId,
        email: input.email,
        fullName: input.fullName,
        role: input.role,
        tokenHash: hashInvitationToken(token),
        createdByCredentialId: input.createdByCredentialId,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + INVITATION_LIFETIME_DAYS * DAY_MS),
        acceptedAt: null,
        acceptedUserId: null,
        revokedAt: null,
      }),
    );
    try {
      await sender.send({
        invitationId: invitation.id,
        to: invitation.email,
        fullName: invitation.fullName,
        accountName: account.name,
        roleName: ROLES.find((r) => r.role === invitation.role)?.display_name ?? invitation.role,
        link: invitationLink(publicBaseUrl, token),
        expiresAt: invitation.expiresAt,
      });
    } catch (error) {
      throw new InvitationDeliveryError(invitation.id, error instanceof Error ? error.message : String(error));
    }
    return invitation;
  });
}
