import { createTransport, type Transporter } from 'nodemailer';

export interface InvitationEmail {
  invitationId: string;
  to: string;
  fullName: string;
  accountName: string;
  roleName: string;
  /** Contains the token: it goes into the message and nowhere else (never a log line). */
  link: string;
  expiresAt: Date;
}

/** Anything that can deliver an invitation e-mail (the api's Nest provider, the CLI). */
export interface InvitationSender {
  /** `signal` abandons the send (shutdown): it rejects with SendAbandonedError. */
  send(email: InvitationEmail, signal?: AbortSignal): Promise<void>;
}

/** Longest wait of each SMTP stage (connect, greeting, every later reply) unless SMTP_TIMEOUT_MS says otherwise. */
export const DEFAULT_SMTP_TIMEOUT_MS = 10_000;
/** Longest whole SMTP exchange of one message unless SMTP_SEND_TIMEOUT_MS says otherwise. */
export const DEFAULT_SMTP_SEND_TIMEOUT_MS = 30_000;

/** The caller's signal ended the send (shutdown); the message was not necessarily refused. */
export class SendAbandonedError extends Error {}

export interface SmtpTimeouts {
  /** Each stage: connect, greeting, every later reply (SMTP_TIMEOUT_MS). */
  stageMs?: number;
  /** The whole exchange of one message (SMTP_SEND_TIMEOUT_MS). */
  sendMs?: number;
}

/**
 * Sends the invitation e-mail through SMTP_URL. Without SMTP_URL (development) it only reports
 * that a message would have been sent, without the link, so the token never reaches a log.
 * Every stage is bounded (nodemailer's own defaults wait up to 10 minutes for a silent server),
 * and so is the whole exchange: the stage timeouts are idle timeouts, and a server that drips one
 * byte every few seconds never trips them. At the total deadline nodemailer's AbortSignal support
 * closes the connection and the send fails like any other (the outbox retries it later).
 */
export class InvitationMailSender implements InvitationSender {
  private readonly transport: Transporter | null;
  private readonly from: string;
  private readonly sendMs: number;

  constructor(
    smtpUrl: string | undefined,
    publicBaseUrl: string,
    private readonly log: (line: string) => void,
    { stageMs = DEFAULT_SMTP_TIMEOUT_MS, sendMs = DEFAULT_SMTP_SEND_TIMEOUT_MS }: SmtpTimeouts = {},
  ) {
    // socketCloseTimeout: an aborted connection is torn down at once instead of waiting for the server to close its side.
    this.transport = smtpUrl
      ? createTransport({ url: smtpUrl, connectionTimeout: stageMs, greetingTimeout: stageMs, socketTimeout: stageMs, socketCloseTimeout: 1000 })
      : null;
    this.from = `Cold Chain Telemetry <no-reply@${new URL(publicBaseUrl).hostname}>`;
    this.sendMs = sendMs;
  }

  get configured(): boolean {
    return this.transport !== null;
  }

  async send(email: InvitationEmail, signal?: AbortSignal): Promise<void> {
    if (!this.transport) {
      this.log(`Invitation e-mail for invitation ${email.invitationId} to ${email.to} not sent: SMTP_URL is unset (the link is not logged).`);
      return;
    }
    const deadline = AbortSignal.timeout(this.sendMs);
    try {
      await this.transport.sendMail({ ...this.message(email), signal: signal ? AbortSignal.any([deadline, signal]) : deadline });
    } catch (error) {
      if (signal?.aborted) throw new SendAbandonedError('the send was abandoned (shutdown)', { cause: error });
      if (deadline.aborted) throw new Error(`the SMTP exchange took longer than ${this.sendMs} ms (SMTP_SEND_TIMEOUT_MS)`, { cause: error });
      throw error;
    }
  }

  private message(email: InvitationEmail) {
    return {
      from: this.from,
      to: { name: email.fullName, address: email.to },
      subject: `${email.accountName} invited you to Cold Chain Telemetry`,
      text: [
        `Hello ${email.fullName},`,
        '',
        `${email.accountName} invited you to Cold Chain Telemetry as ${email.roleName}.`,
        'Open this link to choose your password:',
        '',
        email.link,
        '',
        `The link works once and expires on ${email.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
        'If you did not expect this invitation, ignore this message.',
      ].join('\n'),
    };
  }
}
