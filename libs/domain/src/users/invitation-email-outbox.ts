import type { DataSource, EntityManager } from 'typeorm';
import { decryptSecret, encryptSecret, SecretDecryptionError } from '@app/webhooks';
import type { InvitationSender } from './invitation-mail';
import { invitationLink } from './invitation-link';
import { ROLES } from './roles';

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
export async function enqueueInvitationEmail(manager: EntityManager, secretsKey: Buffer, invitationId: string, token: string): Promise<void> {
  await manager.query('INSERT INTO invitation_emails (invitation_id, sealed_link) VALUES ($1, $2)', [invitationId, encryptSecret(secretsKey, token, aad(invitationId))]);
}

export interface InvitationEmailOutcome {
  sent: number;
  retrying: number;
  failed: number;
}

export interface InvitationEmailOutboxOptions {
  secretsKey: Buffer;
  publicBaseUrl: string;
  sender: InvitationSender & { readonly configured: boolean };
  /** Told why an e-mail was not sent; never given the link. */
  log: (fields: Record<string, unknown>, message: string) => void;
  batchSize?: number;
}

interface ClaimedEmail {
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

  /** Sends what is due now; `invitationId` limits the pass to that invitation's e-mail. */
  async deliverDue(invitationId?: string): Promise<InvitationEmailOutcome> {
    const outcome: InvitationEmailOutcome = { sent: 0, retrying: 0, failed: 0 };
    const claimed = await this.claim(invitationId);
    for (const email of claimed) outcome[await this.deliver(email)] += 1;
    return outcome;
  }

  private async claim(invitationId: string | undefined): Promise<ClaimedEmail[]> {
    return this.dataSource.query(
      `WITH due AS (
         SELECT invitation_id FROM invitation_emails
          WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
            AND ($2::uuid IS NULL OR invitation_id = $2::uuid)
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE invitation_emails e SET attempts = e.attempts + 1, next_attempt_at = now() + make_interval(secs => $3)
           FROM due WHERE e.invitation_id = due.invitation_id
         RETURNING e.invitation_id, e.sealed_link, e.attempts
       )
       SELECT c.*, i.email, i.full_name, i.role, i.expires_at, i.accepted_at, i.revoked_at, a.name AS account_name, a.status AS account_status
         FROM claimed c JOIN user_invitations i ON i.id = c.invitation_id JOIN accounts a ON a.id = i.account_id`,
      [this.options.batchSize ?? 20, invitationId ?? null, LEASE_S],
    );
  }

  private async deliver(email: ClaimedEmail): Promise<keyof InvitationEmailOutcome> {
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
      await this.options.sender.send(this.message(email, invitationLink(this.options.publicBaseUrl, token)));
    } catch (error) {
      return this.failed(email, error instanceof Error ? error.message : String(error));
    }
    await this.dataSource.query('UPDATE invitation_emails SET sent_at = now(), sealed_link = NULL, last_error = NULL WHERE invitation_id = $1', [id]);
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
    await this.dataSource.query('UPDATE invitation_emails SET next_attempt_at = now() + make_interval(secs => $2), last_error = $3 WHERE invitation_id = $1', [
      email.invitation_id,
      delay,
      reason.slice(0, 500),
    ]);
    return 'retrying';
  }

  private async giveUp(invitationId: string, reason: string): Promise<'failed'> {
    this.options.log({ invitation_id: invitationId, reason }, 'invitation e-mail given up');
    await this.dataSource.query('UPDATE invitation_emails SET failed_at = now(), sealed_link = NULL, last_error = $2 WHERE invitation_id = $1', [invitationId, reason.slice(0, 500)]);
    return 'failed';
  }
}
