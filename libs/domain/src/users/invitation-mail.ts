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
  send(email: InvitationEmail): Promise<void>;
}

/** Longest wait of each SMTP stage (connect, greeting, every later reply) unless SMTP_TIMEOUT_MS says otherwise. */
export const DEFAULT_SMTP_TIMEOUT_MS = 10_000;

/**
 * Sends the invitation e-mail through SMTP_URL. Without SMTP_URL (development) it only reports
 * that a message would have been sent, without the link, so the token never reaches a log.
 * Every stage is bounded (nodemailer's own defaults wait up to 10 minutes for a silent server).
 */
export class InvitationMailSender implements InvitationSender {
  private readonly transport: Transporter | null;
  private readonly from: string;

  constructor(
    smtpUrl: string | undefined,
    publicBaseUrl: string,
    private readonly log: (line: string) => void,
    timeoutMs = DEFAULT_SMTP_TIMEOUT_MS,
  ) {
    this.transport = smtpUrl ? createTransport({ url: smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs }) : null;
    this.from = `Cold Chain Telemetry <no-reply@${new URL(publicBaseUrl).hostname}>`;
  }

  get configured(): boolean {
    return this.transport !== null;
  }

  async send(email: InvitationEmail): Promise<void> {
    if (!this.transport) {
      this.log(`Invitation e-mail for invitation ${email.invitationId} to ${email.to} not sent: SMTP_URL is unset (the link is not logged).`);
      return;
    }
    await this.transport.sendMail({
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
    });
  }
}
