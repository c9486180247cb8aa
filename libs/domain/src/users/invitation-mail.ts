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

/**
 * Sends the invitation e-mail through SMTP_URL. Without SMTP_URL (development) it only reports
 * that a message would have been sent, without the link, so the token never reaches a log.
 */
export class InvitationMailSender implements InvitationSender {
  private readonly transport: Transporter | null;
  private readonly from: string;

  constructor(
    smtpUrl: string | undefined,
    publicBaseUrl: string,
    private readonly log: (line: string) => void,
  ) {
    this.transport = smtpUrl ? createTransport(smtpUrl) : null;
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
