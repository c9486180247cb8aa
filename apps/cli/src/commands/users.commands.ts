import type { Command } from 'commander';
import { UUID_PATTERN as UUID, toAccountId } from '@app/vocabulary';
import { AccountsAdminService, createInvitation, InvitationConflictError, InvitationEmailOutbox, InvitationMailSender } from '@app/domain';
import { CliError, type CliContext, output, withContext } from '../cli-context';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface InviteAdminOptions {
  account: string;
  email: string;
  name: string;
  /** Print the link instead of e-mailing it (for a deployment without SMTP_URL). */
  printLink?: boolean;
}

export interface InvitedAdmin {
  id: string;
  account_id: string;
  email: string;
  full_name: string;
  role: 'COMPANY_ADMIN';
  expires_at: string;
  /** The e-mail went out before the command ended; false with --print-link, or when it is queued for a retry. */
  email_sent: boolean;
  /** The e-mail could not be sent yet: the api retries it (for about a day). */
  email_queued?: boolean;
  /** Only with --print-link. */
  link?: string;
}

/**
 * The platform invites a company administrator (the public API can only invite the assignable
 * roles). The person sets a password on the hosted page and can then sign in to the web panel.
 */
export async function usersInviteAdmin({ dataSource, config }: CliContext, options: InviteAdminOptions): Promise<InvitedAdmin> {
  const email = options.email.trim().toLowerCase();
  const fullName = options.name.trim();
  if (!UUID.test(options.account)) throw new CliError(`--account: not an account id: ${options.account}`);
  if (!EMAIL.test(email) || email.length > 254) throw new CliError(`--email: not an e-mail address: ${options.email}`);
  if (fullName.length === 0 || fullName.length > 200) throw new CliError('--name: 1 to 200 characters');
  const account = await new AccountsAdminService(dataSource).find(options.account);
  if (!account) throw new CliError(`no account ${options.account}`);
  if (account.status !== 'active' || account.kind !== 'customer') throw new CliError(`account ${account.id} is not an active customer account`);

  const sender = new InvitationMailSender(config.smtpUrl, config.publicBaseUrl, () => undefined, { stageMs: config.smtpTimeoutMs, sendMs: config.smtpSendTimeoutMs });
  if (!options.printLink && !sender.configured) throw new CliError('SMTP_URL is unset, so the invitation cannot be e-mailed; set SMTP_URL, or pass --print-link and hand the link over yourself');
  try {
    const { invitation, link } = await createInvitation(dataSource, config.secretsKey, config.publicBaseUrl, {
      accountId: toAccountId(account.id),
      email,
      fullName,
      role: 'COMPANY_ADMIN',
      createdByCredentialId: null,
      delivery: options.printLink ? 'caller' : 'email',
      refuseAddressesUsedElsewhere: true, // the platform may know who uses it
    });
    let sent = false;
    if (!options.printLink) {
      // Sent now, after commit, so the operator sees the outcome; a failure stays queued and the api retries it.
      const outbox = new InvitationEmailOutbox(dataSource, { secretsKey: config.secretsKey, publicBaseUrl: config.publicBaseUrl, sender, log: () => undefined });
      sent = (await outbox.deliverDue(invitation.id)).sent === 1;
    }
    return {
      id: invitation.id,
      account_id: invitation.accountId,
      email: invitation.email,
      full_name: invitation.fullName,
      role: 'COMPANY_ADMIN',
      expires_at: invitation.expiresAt.toISOString(),
      email_sent: sent,
      ...(options.printLink ? { link } : sent ? {} : { email_queued: true }),
    };
  } catch (error) {
    if (error instanceof InvitationConflictError) {
      throw new CliError(error.code === 'user_exists' ? `a user with the address ${email} already exists` : `${email} already has a pending invitation to this account`);
    }
    throw error;
  }
}

export function registerUserCommands(program: Command): void {
  program
    .command('users:invite-admin')
    .description("Invite a company's administrator by e-mail: they set a password on the hosted page, then sign in to the web panel")
    .requiredOption('--account <id>', 'the company account')
    .requiredOption('--email <email>', 'e-mail address of the person')
    .requiredOption('--name <full name>', 'full name of the person')
    .option('--print-link', 'print the single-use link instead of e-mailing it (no SMTP_URL); treat it like a password')
    .option('--json', 'machine-readable output')
    .action(async (options: { account: string; email: string; name: string; printLink?: boolean; json?: boolean }) => {
      await withContext(async (context) => {
        const invited = await usersInviteAdmin(context, options);
        const human = [
          `Invitation ${invited.id} for ${invited.email} (company administrator) created; it expires ${invited.expires_at}.`,
          invited.link
            ? `Single-use link (hand it over privately): ${invited.link}`
            : invited.email_sent
              ? 'The invitation e-mail was sent.'
              : 'The mail server did not take the e-mail yet; it is queued and the api retries it for about a day.',
        ].join('\n');
        output(Boolean(options.json), invited, human);
      });
    });
}
