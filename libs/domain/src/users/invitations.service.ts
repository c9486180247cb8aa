import { type DataSource, type EntityManager, QueryFailedError } from 'typeorm';
import { newId, type UserInvitation } from '@app/database';
import { hashSecret } from '../auth';
import { accountById } from '../accounts';
import { NotFoundError } from '../errors';
import { hashInvitationToken, TOKEN_PATTERN } from './invitation-link';
import { createInvitation, InvitationConflictError } from './invitation-writer';
import { alreadyInvited, invitationAlreadyAccepted, userExists } from './invitations.errors';
import { COMPANY_ADMIN, type Role } from '@app/vocabulary';
import { roleNotAssignable } from './users.errors';
import { acceptInvitation, emailTaken, findInvitationByTokenHash, findUnrevokedInvitationForUpdate, insertCustomerUser, listInvitations, revokeInvitation } from './users.repository';
import type { AccountId, KeysetPage } from '@app/vocabulary';

const UNIQUE_VIOLATION = '23505';

/** Why an invitation link cannot be used (the hosted page explains each). */
export type LinkProblem = 'invalid' | 'expired' | 'revoked' | 'used' | 'account_inactive' | 'user_exists';

export type LinkCheck = { ok: true; invitation: UserInvitation; accountName: string } | { ok: false; problem: LinkProblem };

/** A new invitation of the public API (the e-mail is stored in lower case). */
export interface InvitationInput {
  email: string;
  full_name: string;
  role: Role;
}

export interface InvitationsOptions {
  /** Seals the queued link (AppConfig.secretsKey). */
  secretsKey: Buffer;
  /** Base of the hosted password page (AppConfig.publicBaseUrl). */
  publicBaseUrl: string;
}

/** Wakes this process's sender of queued invitation e-mails (the api's InvitationEmailRelay). */
export interface InvitationEmailWaker {
  kick(): void;
}

export class InvitationsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: InvitationsOptions,
    private readonly emails: InvitationEmailWaker,
  ) {}

  /** Revoked invitations are gone from the API's point of view. */
  async list(accountId: AccountId, page: KeysetPage<string>): Promise<UserInvitation[]> {
    return listInvitations(this.dataSource, accountId, page.after ?? undefined, page.limit + 1);
  }

  /**
   * The e-mail is queued in the invitation's transaction and sent after commit, with retries
   * (InvitationEmailRelay). An address used by another account is invited like any other: telling
   * the caller would disclose who uses the platform; the hosted page tells the invitee.
   */
  async create(accountId: AccountId, credentialId: string, input: InvitationInput): Promise<UserInvitation> {
    if (input.role === COMPANY_ADMIN) throw roleNotAssignable();
    try {
      const { invitation } = await createInvitation(this.dataSource, this.options.secretsKey, this.options.publicBaseUrl, {
        accountId,
        email: input.email,
        fullName: input.full_name,
        role: input.role,
        createdByCredentialId: credentialId,
        delivery: 'email',
        refuseAddressesUsedElsewhere: false,
      });
      this.emails.kick();
      return invitation;
    } catch (error) {
      if (error instanceof InvitationConflictError) throw error.code === 'user_exists' ? userExists() : alreadyInvited();
      throw error;
    }
  }

  async revoke(accountId: AccountId, invitationId: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const invitation = await findUnrevokedInvitationForUpdate(manager, accountId, invitationId);
      if (!invitation) throw new NotFoundError('Invitation');
      if (invitation.acceptedAt) throw invitationAlreadyAccepted();
      await revokeInvitation(manager, accountId, invitation.id, new Date());
    });
  }

  /** For the hosted page: can this token still be used? */
  async check(token: string): Promise<LinkCheck> {
    return this.checkWith(this.dataSource.manager, token, false);
  }

  /**
   * Creates the active customer user with the invited role and marks the invitation accepted,
   * re-checking the link under a row lock so a token works exactly once.
   */
  async accept(token: string, password: string): Promise<LinkCheck> {
    const passwordHash = await hashSecret(password);
    try {
      return await this.dataSource.transaction(async (manager) => {
        const check = await this.checkWith(manager, token, true);
        if (!check.ok) return check;
        const { invitation } = check;
        const user = await insertCustomerUser(manager, invitation.accountId, {
          id: newId(),
          email: invitation.email,
          fullName: invitation.fullName,
          role: invitation.role,
          passwordHash,
        });
        invitation.acceptedAt = new Date();
        invitation.acceptedUserId = user.id;
        await acceptInvitation(manager, invitation.accountId, invitation.id, invitation.acceptedAt, user.id);
        return check;
      });
    } catch (error) {
      // Another acceptance created a user with this address between our check and insert.
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === UNIQUE_VIOLATION) {
        return { ok: false, problem: 'user_exists' };
      }
      throw error;
    }
  }

  private async checkWith(manager: EntityManager, token: string, lock: boolean): Promise<LinkCheck> {
    if (!TOKEN_PATTERN.test(token)) return { ok: false, problem: 'invalid' };
    const invitation = await findInvitationByTokenHash(manager, hashInvitationToken(token), lock);
    if (!invitation) return { ok: false, problem: 'invalid' };
    if (invitation.revokedAt) return { ok: false, problem: 'revoked' };
    if (invitation.acceptedAt) return { ok: false, problem: 'used' };
    if (invitation.expiresAt <= new Date()) return { ok: false, problem: 'expired' };
    const account = await accountById(manager, invitation.accountId);
    if (!account || account.status !== 'active') return { ok: false, problem: 'account_inactive' };
    // Whoever holds the link owns the address: telling them it already has an account discloses nothing.
    if (await emailTaken(manager, invitation.email)) return { ok: false, problem: 'user_exists' };
    return { ok: true, invitation, accountName: account.name };
  }
}
