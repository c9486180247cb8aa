import { createHash } from 'node:crypto';
import { verifySecret } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { newKey } from '../support/catalogue';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { startSmtp, type TestSmtp } from '../support/smtp';
import { insertUser } from '../support/users';

const LINK = /http:\/\/api\.test\/invitations\/accept\/\?token=([A-Za-z0-9_-]{43})/;
const PASSWORD = 'correct horse battery staple';

interface Invitation {
  id: string;
  email: string;
  status: string;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
}

describe('/user-invitations/ and the hosted password page', () => {
  let smtp: TestSmtp;
  let api: TestApi;
  let tenant: Tenant;
  /** Every API response body of this suite, to prove secrets never appear in one. */
  const seen: string[] = [];

  const record = <T extends { text: string }>(res: T): T => {
    seen.push(res.text);
    return res;
  };
  const invite = async (body: Record<string, unknown>, who: Tenant = tenant, key = newKey()) =>
    record(await api.http.post(`${API}/user-invitations/`).set(who.auth).set('Idempotency-Key', key).send(body));
  const invitations = async (who: Tenant = tenant): Promise<Invitation[]> =>
    record(await api.http.get(`${API}/user-invitations/`).set(who.auth).expect(200)).body.data;
  /** Invites and returns the invitation with the token taken from the e-mail. */
  const inviteAndReadMail = async (email: string, role = 'OPERATOR') => {
    const before = smtp.messages.length;
    const res = await invite({ email, full_name: 'New Person', role });
    expect(res.status).toBe(201);
    expect(smtp.messages).toHaveLength(before + 1);
    const mail = smtp.messages[smtp.messages.length - 1];
    const match = LINK.exec(mail.text);
    if (!match) throw new Error(`no invitation link in:\n${mail.text}`);
    return { invitation: res.body as Invitation, mail, link: match[0], token: match[1], path: new URL(match[0]).pathname + new URL(match[0]).search };
  };
  const submit = (fields: Record<string, string>) => api.raw.post('/invitations/accept/').type('form').send(fields);

  beforeAll(async () => {
    smtp = await startSmtp();
    api = await startApi({ SMTP_URL: smtp.url });
    tenant = await createTenant(api.app, ['users:read', 'users:invite'], 'Polar Pharma');
  });
  afterAll(async () => {
    await api.close();
    await smtp.close();
  });

  it('e-mails a link to the hosted page, where the person sets a password and becomes a user', async () => {
    const { invitation, mail, link, token, path } = await inviteAndReadMail('New.Person@Example.com', 'MANAGER');
    expect(invitation).toMatchObject({ email: 'new.person@example.com', full_name: 'New Person', role: 'MANAGER', status: 'pending', accepted_at: null });
    expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).toBe(7 * 24 * 3600 * 1000);
    expect(mail.to).toEqual(['new.person@example.com']);
    expect(mail.text).toMatch(/^Subject: Polar Pharma invited you to Cold Chain Telemetry/m);
    expect(link).toContain(token);

    const page = await api.raw.get(path).expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('<html lang="en">');
    expect(page.text).toContain('<form method="post" action="/invitations/accept/"');
    expect(page.text).toContain(`<input type="hidden" name="token" value="${token}">`);
    expect(page.text).toMatch(/<label for="password">[^<]+<\/label>\s*<input id="password" name="password" type="password" autocomplete="new-password"/);
    expect(page.text).toMatch(/<label for="password_confirmation">[^<]+<\/label>\s*<input id="password_confirmation" name="password_confirmation" type="password"/);
    expect(page.text).not.toContain('<script');

    const short = await submit({ token, password: 'too short', password_confirmation: 'too short' }).expect(400);
    expect(short.text).toContain('role="alert"');
    expect(short.text).toContain('At least 12 characters');
    expect(short.text).toMatch(/id="password"[^>]*aria-invalid="true"/);
    const mismatch = await submit({ token, password: PASSWORD, password_confirmation: `${PASSWORD}!` }).expect(400);
    expect(mismatch.text).toContain('The two passwords do not match.');
    expect((await invitations()).find((i) => i.id === invitation.id)?.status).toBe('pending');

    const done = await submit({ token, password: PASSWORD, password_confirmation: PASSWORD }).expect(200);
    expect(done.text).toContain('Your password is set');
    expect(done.headers['set-cookie']).toBeUndefined();

    const accepted = (await invitations()).find((i) => i.id === invitation.id);
    expect(accepted).toMatchObject({ status: 'accepted', accepted_at: expect.any(String) });
    const users = record(await api.http.get(`${API}/users/`).set(tenant.auth).expect(200)).body.data;
    const created = users.find((u: { email: string }) => u.email === 'new.person@example.com');
    expect(created).toMatchObject({ full_name: 'New Person', role: 'MANAGER', is_active: true, deactivated_at: null });
    record(await api.http.get(`${API}/users/${created.id}/`).set(tenant.auth).expect(200));

    const [stored] = await dataSourceOf(api.app).query('SELECT password_hash FROM users WHERE id = $1', [created.id]);
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    await expect(verifySecret(PASSWORD, stored.password_hash)).resolves.toBe(true);

    // The link works once.
    const again = await api.raw.get(path).expect(410);
    expect(again.text).toContain('already used');
    await submit({ token, password: PASSWORD, password_confirmation: PASSWORD }).expect(410);
    const revoke = record(await api.http.delete(`${API}/user-invitations/${invitation.id}/`).set(tenant.auth).expect(409));
    expect(revoke.body.code).toBe('invitation_already_accepted');
  });

  it('stores only a SHA-256 hash of the token and never returns the token, its hash or a password hash', async () => {
    const { invitation, token } = await inviteAndReadMail('secret.keeper@example.com');
    const [row] = await dataSourceOf(api.app).query('SELECT * FROM user_invitations WHERE id = $1', [invitation.id]);
    const tokenHash = createHash('sha256').update(token).digest('hex');
    expect(row.token_hash).toBe(tokenHash);
    expect(JSON.stringify(row)).not.toContain(token);
    await submit({ token, password: PASSWORD, password_confirmation: PASSWORD }).expect(200);
    const [user] = await dataSourceOf(api.app).query('SELECT password_hash FROM users WHERE lower(email) = $1', ['secret.keeper@example.com']);
    record(await api.http.get(`${API}/users/`).set(tenant.auth).expect(200));
    await invitations();

    expect(seen.length).toBeGreaterThan(3);
    for (const body of seen) {
      expect(body).not.toContain(token);
      expect(body).not.toContain(tokenHash);
      expect(body).not.toContain(user.password_hash);
      expect(body).not.toMatch(/"(token|token_hash|password|password_hash)"\s*:|scrypt\$/i);
    }
  });

  it('refuses an address with a pending invitation or an existing user, and COMPANY_ADMIN', async () => {
    await inviteAndReadMail('twice@example.com');
    const again = await invite({ email: 'TWICE@example.com', full_name: 'Again', role: 'VIEWER' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_invited');

    const elsewhere = await createTenant(api.app, ['users:invite']);
    await insertUser(dataSourceOf(api.app), { accountId: elsewhere.accountId, email: 'taken@example.com' });
    const taken = await invite({ email: 'taken@example.com', full_name: 'Taken', role: 'VIEWER' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('user_exists');

    const admin = await invite({ email: 'boss@example.com', full_name: 'Boss', role: 'COMPANY_ADMIN' });
    expect(admin.status).toBe(409);
    expect(admin.body.code).toBe('role_not_assignable');
    expect((await invitations()).map((i) => i.email)).not.toContain('boss@example.com');
  });

  it.each([
    [{ email: 'not-an-email', full_name: 'X', role: 'VIEWER' }, 'email', 'isEmail'],
    [{ email: 'x@example.com', full_name: '', role: 'VIEWER' }, 'full_name', 'isLength'],
    [{ email: 'x@example.com', full_name: 'X', role: 'KING' }, 'role', 'isIn'],
    [{ email: 'x@example.com', full_name: 'X', role: 'VIEWER', token: 'mine' }, 'token', 'unknown_field'],
  ])('refuses %j', async (body, field, code) => {
    const res = await invite(body);
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({ field, code, message: expect.any(String) });
  });

  it('replays a repeated create without a second e-mail', async () => {
    const key = newKey();
    const body = { email: 'replayed@example.com', full_name: 'Replayed', role: 'VIEWER' };
    const before = smtp.messages.length;
    const first = await invite(body, tenant, key);
    expect(first.status).toBe(201);
    const replay = await invite(body, tenant, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(smtp.messages).toHaveLength(before + 1);
    expect((await invite({ ...body, role: 'MANAGER' }, tenant, key)).status).toBe(422);
  });

  it('revokes a pending invitation inside the tenant only; the link then says so', async () => {
    const { invitation, path } = await inviteAndReadMail('revoked@example.com');
    const stranger = await createTenant(api.app, ['users:invite']);
    record(await api.http.delete(`${API}/user-invitations/${invitation.id}/`).set(stranger.auth).expect(404));
    const reader = await createTenant(api.app, ['users:read']);
    await api.http.delete(`${API}/user-invitations/${invitation.id}/`).set(reader.auth).expect(403);

    await api.http.delete(`${API}/user-invitations/${invitation.id}/`).set(tenant.auth).expect(204);
    expect((await invitations()).map((i) => i.id)).not.toContain(invitation.id);
    await api.http.delete(`${API}/user-invitations/${invitation.id}/`).set(tenant.auth).expect(404);
    const page = await api.raw.get(path).expect(410);
    expect(page.text).toContain('withdrawn');
    // A revoked address can be invited again.
    expect((await invite({ email: 'revoked@example.com', full_name: 'Back', role: 'VIEWER' })).status).toBe(201);
  });

  it('derives expiry at read time: expired invitations are listed as such, their link is refused, they can be revoked', async () => {
    const { invitation, token, path } = await inviteAndReadMail('late@example.com');
    await dataSourceOf(api.app).query(
      `UPDATE user_invitations SET created_at = now() - interval '8 days', expires_at = now() - interval '1 day' WHERE id = $1`,
      [invitation.id],
    );
    expect((await invitations()).find((i) => i.id === invitation.id)?.status).toBe('expired');
    expect((await api.raw.get(path).expect(410)).text).toContain('expired');
    await submit({ token, password: PASSWORD, password_confirmation: PASSWORD }).expect(410);
    expect((await invite({ email: 'late@example.com', full_name: 'Late again', role: 'VIEWER' })).status).toBe(201);
    await api.http.delete(`${API}/user-invitations/${invitation.id}/`).set(tenant.auth).expect(204);
  });

  it('shows a clear page for a malformed or unknown token, an inactive account, and an address taken meanwhile', async () => {
    for (const query of ['', '?token=', '?token=abc', `?token=${'A'.repeat(43)}`]) {
      const page = await api.raw.get(`/invitations/accept/${query}`).expect(400);
      expect(page.text).toContain('This link is not valid');
      expect(page.text).not.toContain('<form');
    }
    await submit({ token: 'A'.repeat(43), password: PASSWORD, password_confirmation: PASSWORD }).expect(400);

    const other = await createTenant(api.app, ['users:invite'], 'Soon Suspended');
    const res = await invite({ email: 'suspended@example.com', full_name: 'S', role: 'VIEWER' }, other);
    const token = LINK.exec(smtp.messages[smtp.messages.length - 1].text)?.[1];
    expect(res.status).toBe(201);
    await dataSourceOf(api.app).query(`UPDATE accounts SET status = 'suspended' WHERE id = $1`, [other.accountId]);
    expect((await api.raw.get(`/invitations/accept/?token=${token}`).expect(410)).text).toContain('not active');

    const { token: raced } = await inviteAndReadMail('raced@example.com');
    await insertUser(dataSourceOf(api.app), { accountId: tenant.accountId, email: 'Raced@example.com' });
    const conflict = await submit({ token: raced, password: PASSWORD, password_confirmation: PASSWORD }).expect(409);
    expect(conflict.text).toContain('already exists');
  });

  it('refuses to create an invitation when the e-mail cannot be sent, and stores nothing', async () => {
    const down = await startSmtp();
    await down.close();
    const broken = await startApi({ SMTP_URL: down.url });
    try {
      const res = await broken.http
        .post(`${API}/user-invitations/`)
        .set(tenant.auth)
        .set('Idempotency-Key', newKey())
        .send({ email: 'unsent@example.com', full_name: 'Unsent', role: 'VIEWER' })
        .expect(503);
      expect(res.body.code).toBe('email_delivery_failed');
      expect(res.headers['retry-after']).toBe('30');
      expect((await invitations()).map((i) => i.email)).not.toContain('unsent@example.com');
    } finally {
      await broken.close();
    }
  });

  it('still creates the invitation without SMTP_URL (the e-mail is only logged)', async () => {
    const quiet = await startApi({ SMTP_URL: '' });
    try {
      const before = smtp.messages.length;
      const res = await quiet.http
        .post(`${API}/user-invitations/`)
        .set(tenant.auth)
        .set('Idempotency-Key', newKey())
        .send({ email: 'logged@example.com', full_name: 'Logged', role: 'VIEWER' })
        .expect(201);
      expect(res.body.status).toBe('pending');
      expect(smtp.messages).toHaveLength(before);
    } finally {
      await quiet.close();
    }
  });
});
