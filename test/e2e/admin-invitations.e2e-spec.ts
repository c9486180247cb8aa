import { loadConfig } from '@app/config';
import { CliError, type CliContext } from '../../apps/cli/src/cli-context';
import { usersInviteAdmin } from '../../apps/cli/src/commands/users.commands';
import { startApi, type TestApi } from '../support/api';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { insertPanelUser, PANEL_PASSWORD, signIn } from '../support/panel';
import { startSmtp, type TestSmtp } from '../support/smtp';
import { runCaptured } from '../support/cli';

const LINK = /http:\/\/api\.test\/invitations\/accept\/\?token=([A-Za-z0-9_-]{43})/;

describe('platform invitation of a company administrator (CLI users:invite-admin)', () => {
  let smtp: TestSmtp;
  let api: TestApi;
  let context: CliContext;

  beforeAll(async () => {
    smtp = await startSmtp();
    api = await startApi();
    context = { dataSource: dataSourceOf(api.app), config: loadConfig({ ...process.env, PUBLIC_BASE_URL: 'http://api.test', SMTP_URL: smtp.url }) };
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
  });

  it('e-mails the administrator a link; the password set there signs them in to the panel as company administrator', async () => {
    const accountId = await createAccount(context.dataSource, 'Admin Invite Co');
    const invited = await usersInviteAdmin(context, { account: accountId, email: 'First.Admin@Example.com', name: 'First Admin' });
    expect(invited).toMatchObject({ account_id: accountId, email: 'first.admin@example.com', role: 'COMPANY_ADMIN', email_sent: true });
    expect(invited).not.toHaveProperty('link');
    const mail = smtp.messages[smtp.messages.length - 1];
    expect(mail.to).toEqual(['first.admin@example.com']);
    expect(mail.text).toContain('invited you to Cold Chain Telemetry as Company administrator');
    const token = (LINK.exec(mail.text) as RegExpExecArray)[1];
    const [row] = await context.dataSource.query('SELECT role, created_by_credential_id, token_hash FROM user_invitations WHERE id = $1', [invited.id]);
    expect(row).toMatchObject({ role: 'COMPANY_ADMIN', created_by_credential_id: null });
    expect(row.token_hash).not.toContain(token);

    await api.raw.get(`/invitations/accept/?token=${token}`).expect(200);
    await api.raw.post('/invitations/accept/').type('form').send({ token, password: PANEL_PASSWORD, password_confirmation: PANEL_PASSWORD }).expect(200);
    const [user] = await context.dataSource.query('SELECT role, account_id FROM users WHERE email = $1', ['first.admin@example.com']);
    expect(user).toEqual({ role: 'COMPANY_ADMIN', account_id: accountId });
    const { agent } = await signIn(api, 'first.admin@example.com');
    expect((await agent.get('/panel/credentials/').expect(200)).text).toContain('<h1>API credentials</h1>');
  });

  it('prints the link instead with --print-link, and refuses what cannot be invited', async () => {
    const accountId = await createAccount(context.dataSource, 'Print Link Co');
    const printed = await runCaptured('users:invite-admin', '--account', accountId, '--email', 'printed@example.com', '--name', 'Printed Admin', '--print-link', '--json');
    expect(printed.code).toBe(0);
    const body = JSON.parse(printed.stdout) as { link: string; email_sent: boolean };
    expect(body.email_sent).toBe(false);
    await api.raw.get(new URL(body.link).pathname + new URL(body.link).search).expect(200);

    const refused = async (options: Parameters<typeof usersInviteAdmin>[1], message: RegExp, ctx = context) => {
      const error = await usersInviteAdmin(ctx, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliError);
      expect((error as Error).message).toMatch(message);
    };
    const suspended = await createAccount(context.dataSource, 'Suspended Invite Co', { status: 'suspended' });
    const existing = await insertPanelUser(context.dataSource, accountId, 'VIEWER');
    await refused({ account: suspended, email: 'x@example.com', name: 'X' }, /not an active customer account/);
    await refused({ account: '01900000-0000-7000-8000-000000000009', email: 'x@example.com', name: 'X' }, /no account/);
    await refused({ account: accountId, email: 'not-an-address', name: 'X' }, /--email/);
    await refused({ account: accountId, email: existing.email, name: 'X' }, /already exists/);
    await refused({ account: accountId, email: 'printed@example.com', name: 'X' }, /pending invitation/);
    // A mail server that refuses: the invitation exists, its e-mail stays queued for the api's retries.
    const refusing = { ...context, config: loadConfig({ ...process.env, PUBLIC_BASE_URL: 'http://api.test', SMTP_URL: 'smtp://127.0.0.1:9', SMTP_TIMEOUT_MS: '500' }) };
    const queued = await usersInviteAdmin(refusing, { account: accountId, email: 'queued@example.com', name: 'Queued Admin' });
    expect(queued).toMatchObject({ email_sent: false, email_queued: true });
    const [mail] = await context.dataSource.query('SELECT attempts, sent_at, failed_at, last_error, next_attempt_at > now() AS later FROM invitation_emails WHERE invitation_id = $1', [queued.id]);
    expect(mail).toMatchObject({ attempts: 1, sent_at: null, failed_at: null, later: true, last_error: expect.any(String) });
    const withoutSmtp = { ...context, config: loadConfig({ ...process.env, SMTP_URL: '' }) };
    await refused({ account: accountId, email: 'y@example.com', name: 'Y' }, /SMTP_URL is unset/, withoutSmtp);
  });
});
