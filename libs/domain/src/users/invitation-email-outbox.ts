import type { DataSource } from 'typeorm';
import type { Db } from '@app/database/sql';
import { decryptSecret, encryptSecret, SecretDecryptionError } from '@app/webhooks';
import { SendAbandonedError, type InvitationSender } from './invitation-mail';
import { invitationLink } from './invitation-link';
import { ROLES } from '@app/vocabulary';
import {
  claimDueInvitationEmails,
  giveUpInvitationEmail,
  insertInvitationEmail,
  markInvitationEmailSent,
  releaseInvitationEmail,
  retryInvitationEmail,
  type ClaimedInvitationEmail as ClaimedEmail,
} from './users.repository';

/**
 * Delays before the 2nd, 3rd… attempt of an invitation e-mail: nine attempts over about a day,
 * well inside the link's 7-day lifetime. Then the e-mail is given up (the invitation stays
 * pending; revoking it and inviting again sends a new link).
 */
export const INVITATION_EMAIL_RETRY_DELAYS_S = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600];

/** A claimed e-mail is invisible to other senders this long: longer than one bounded SMTP attempt. */
const LEASE_S = 300;

const aad = (invitationId: string): string => `invitation-email:${invitationId}`;

/**
 * Queues the invitation's e-mail inside the invitation's own transaction; a sender delivers it
 * after commit. The token is stored sealed with SECRETS_KEY until the message is sent.
 */
export async function enqueueInvitationEmail(manager: Db, secretsKey: Buffer, invitationId: string, token: string): Promise<void> {
  await insertInvitationEmail(manager, invitationId, encryptSecret(secretsKey, token, aad(invitationId)));
}

export interface InvitationEmailOutcome {
  sent: number;
  retrying: number;
  failed: number;
  /** Abandoned at shutdown: due again at once for the next sender, the attempt not counted. */
  released: number;
}

export interface InvitationEmailOutboxOptions {
  secretsKey: Buffer;
  publicBaseUrl: string;
  sender: InvitationSender & { readonly configured: boolean };
  /** Told why an e-mail was not sent; never given the link. */
  log: (fields: Record<string, unknown>, message: string) => void;
  batchSize?: number;
}

/**
 * Sends queued invitation e-mails, each outside any transaction: a claim (one autocommitted
 * UPDATE) leases the row, the SMTP exchange runs with the sender's own timeouts, and one more
 * UPDATE records the outcome. Replicas and the CLI may send at once: SKIP LOCKED and the lease
 * give each message to one sender. A crash mid-send leaves the lease to expire: the message may
 * go twice, never zero times.
 */
export class InvitationEmailOutbox {
  constructor(
    private readonly dataSource: DataSource,
    private readonly options: InvitationEmailOutboxOptions,
  ) {}

  /**
   * Sends what is due now; `invitationId` limits the pass to that invitation's e-mail. `signal`
   * (shutdown) abandons the pass: the send under way is aborted, and it and the rest of the batch
   * are released for the next sender instead of waiting out their lease.
   */
  async deliverDue(invitationId?: string, signal?: AbortSignal): Promise<InvitationEmailOutcome> {
    const outcome: InvitationEmailOutcome = { sent: 0, retrying: 0, failed: 0, released: 0 };
    const claimed = await this.claim(invitationId);
    for (const email of claimed) outcome[signal?.aborted ? await this.release(email) : await this.deliver(email, signal)] += 1;
    return outcome;
  }

  private async claim(invitationId: string | undefined): Promise<ClaimedEmail[]> {
    return claimDueInvitationEmails(this.dataSource, this.options.batchSize ?? 20, invitationId ?? null, LEASE_S);
  }

  private async deliver(email: ClaimedEmail, signal: AbortSignal | undefined): Promise<keyof InvitationEmailOutcome> {
    const id = email.invitation_id;
    const pending = !email.accepted_at && !email.revoked_at && email.expires_at > new Date() && email.account_status === 'active';
    if (!pending) return this.giveUp(id, 'the invitation is no longer pending');
    if (!this.options.sender.configured) {
      await this.options.sender.send(this.message(email, '')); // logs that SMTP_URL is unset, without a link
      return this.giveUp(id, 'SMTP_URL is unset');
    }
    let token: string;
    try {
      if (!email.sealed_link) return this.giveUp(id, 'no link stored');
      token = decryptSecret(this.options.secretsKey, email.sealed_link, aad(id));
    } catch (error) {
      if (error instanceof SecretDecryptionError) return this.giveUp(id, 'the link does not decrypt (SECRETS_KEY changed?)');
      throw error;
    }
    try {
      await this.options.sender.send(this.message(email, invitationLink(this.options.publicBaseUrl, token)), signal);
    } catch (error) {
      if (error instanceof SendAbandonedError) return this.release(email);
      return this.failed(email, error instanceof Error ? error.message : String(error));
    }
    await markInvitationEmailSent(this.dataSource, id);
    return 'sent';
  }

  private message(email: ClaimedEmail, link: string) {
    return {
      invitationId: email.invitation_id,
      to: email.email,
      fullName: email.full_name,
      accountName: email.account_name,
      roleName: ROLES.find((r) => r.role === email.role)?.display_name ?? email.role,
      link,
      expiresAt: new Date(email.expires_at),
    };
  }

  private async failed(email: ClaimedEmail, reason: string): Promise<'retrying' | 'failed'> {
    const delay = INVITATION_EMAIL_RETRY_DELAYS_S[email.attempts - 1];
    if (delay === undefined) return this.giveUp(email.invitation_id, reason);
    this.options.log({ invitation_id: email.invitation_id, attempt: email.attempts, retry_in_s: delay, reason }, 'invitation e-mail failed; retrying later');
    await retryInvitationEmail(this.dataSource, email.invitation_id, delay, reason.slice(0, 500));
    return 'retrying';
  }

  private async release(email: ClaimedEmail): Promise<'released'> {
    await releaseInvitationEmail(this.dataSource, email.invitation_id);
    return 'released';
  }

  private async giveUp(invitationId: string, reason: string): Promise<'failed'> {
    this.options.log({ invitation_id: invitationId, reason }, 'invitation e-mail given up');
    await giveUpInvitationEmail(this.dataSource, invitationId, reason.slice(0, 500));
    return 'failed';
  }
}
