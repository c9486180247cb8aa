import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { verifySecret } from '@app/domain';
import { InvitationEmailRelay } from '../../apps/api/src/users/invitations/invitation-email-relay';
import { API, startApi, type TestApi } from '../support/api';
import { newKey } from '../support/catalogue';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { AppProcess, freePort, waitShowingOutput } from '../support/app-process';
import { DrippingSmtpProxy, startSmtp, type TestSmtp } from '../support/smtp';
import { TcpProxy } from '../support/tcp-proxy';
import { insertUser } from '../support/users';
import { waitFor } from '../support/wait';

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
    // Sent after commit: the message arrives right after the response.
    const mail = await waitFor(`the invitation e-mail to ${email}`, () => smtp.messages.slice(before).find((m) => m.to.includes(email.toLowerCase())));
    const match = LINK.exec(mail.text);
    if (!match) throw new Error(`no invitation link in:\n${mail.text}`);
    return { invitation: res.body as Invitation, mail, link: match[0], token: match[1], path: new URL(match[0]).pathname + new URL(match[0]).search };
  };
  /** Runs `work` while this suite's main api sends no e-mail (all apps share one database). */
  const withoutMainSender = async (work: () => Promise<void>) => {
    const sender = api.app.get(InvitationEmailRelay);
    await sender.beforeApplicationShutdown();
    try {
      await work();
    } finally {
      sender.onApplicationBootstrap();
    }
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

    await insertUser(dataSourceOf(api.app), { accountId: tenant.accountId, email: 'taken@example.com' });
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
    await waitFor('the e-mail', () => smtp.messages.length > before);
    await new Promise((resolve) => setTimeout(resolve, 300));
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
    const before = smtp.messages.length;
    const res = await invite({ email: 'suspended@example.com', full_name: 'S', role: 'VIEWER' }, other);
    const mail = await waitFor('the e-mail', () => smtp.messages.slice(before).find((m) => m.to.includes('suspended@example.com')));
    const token = LINK.exec(mail.text)?.[1];
    expect(res.status).toBe(201);
    await dataSourceOf(api.app).query(`UPDATE accounts SET status = 'suspended' WHERE id = $1`, [other.accountId]);
    expect((await api.raw.get(`/invitations/accept/?token=${token}`).expect(410)).text).toContain('not active');

    const { token: raced } = await inviteAndReadMail('raced@example.com');
    await insertUser(dataSourceOf(api.app), { accountId: tenant.accountId, email: 'Raced@example.com' });
    const conflict = await submit({ token: raced, password: PASSWORD, password_confirmation: PASSWORD }).expect(409);
    expect(conflict.text).toContain('already exists');
  });

  it('does not disclose that an address belongs to a user of another account: answered as a fresh invitation, the hosted page tells the invitee', async () => {
    const elsewhere = await createTenant(api.app, ['users:invite']);
    await insertUser(dataSourceOf(api.app), { accountId: elsewhere.accountId, email: 'Known.Elsewhere@example.com' });
    const known = await inviteAndReadMail('known.elsewhere@example.com', 'VIEWER');
    const fresh = await inviteAndReadMail('never.seen@example.com', 'VIEWER');
    const shape = (body: Invitation) => Object.keys(body).sort();
    expect(shape(known.invitation)).toEqual(shape(fresh.invitation));
    expect(known.invitation).toMatchObject({ status: 'pending', accepted_at: null });
    expect((await invitations()).map((i) => i.email)).toEqual(expect.arrayContaining(['known.elsewhere@example.com', 'never.seen@example.com']));
    const page = await api.raw.get(known.path).expect(409);
    expect(page.text).toContain('already exists');
    const users = await dataSourceOf(api.app).query('SELECT account_id FROM users WHERE lower(email) = $1', ['known.elsewhere@example.com']);
    expect(users).toEqual([{ account_id: elsewhere.accountId }]);
  });

  it('sends the e-mail after commit: an unreachable mail server never fails or delays the request, and the e-mail is retried until it goes out once', async () => {
    await withoutMainSender(async () => {
      const proxy = new TcpProxy('127.0.0.1', Number(new URL(smtp.url).port));
      await proxy.up();
      const port = proxy.port;
      await proxy.down(); // the mail server is unreachable
      const flaky = await startApi({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '1000' });
      try {
        const before = smtp.messages.length;
        const res = await flaky.http
          .post(`${API}/user-invitations/`)
          .set(tenant.auth)
          .set('Idempotency-Key', newKey())
          .send({ email: 'retried@example.com', full_name: 'Retried', role: 'VIEWER' })
          .expect(201);
        expect(res.body.status).toBe('pending');
        const db = dataSourceOf(api.app);
        const row = await waitFor('a failed first attempt', async () => {
          const [r] = await db.query('SELECT attempts, last_error, sent_at, sealed_link, next_attempt_at > now() AS later FROM invitation_emails WHERE invitation_id = $1', [res.body.id]);
          return r?.attempts >= 1 && r.last_error ? r : undefined;
        });
        expect(row).toMatchObject({ sent_at: null, later: true });
        expect(row.sealed_link).toMatch(/^v1\./); // sealed: the database alone holds no working link
        expect(smtp.messages).toHaveLength(before);

        await proxy.up(); // the mail server is back; skip the backoff instead of waiting 30 s
        await db.query('UPDATE invitation_emails SET next_attempt_at = now() WHERE invitation_id = $1', [res.body.id]);
        const mail = await waitFor('the retried e-mail', () => smtp.messages.slice(before).find((m) => m.to.includes('retried@example.com')));
        const token = LINK.exec(mail.text)?.[1] as string;
        await api.raw.get(`/invitations/accept/?token=${token}`).expect(200);
        // The relay records the send once the SMTP server has answered, a moment after the message arrives.
        const sent = await waitFor('the send recorded', async () => {
          const [r] = await db.query('SELECT attempts, sent_at, sealed_link, last_error FROM invitation_emails WHERE invitation_id = $1', [res.body.id]);
          return r?.sent_at ? r : undefined;
        });
        expect(sent).toMatchObject({ attempts: 2, sent_at: expect.any(Date), sealed_link: null, last_error: null });
        expect(row.sealed_link).not.toContain(token);
        await new Promise((resolve) => setTimeout(resolve, 1500)); // a few more polls: no second copy
        expect(smtp.messages.slice(before).filter((m) => m.to.includes('retried@example.com'))).toHaveLength(1);
      } finally {
        await flaky.close();
        await proxy.down();
      }
    });
  });

  it('never waits for a mail server that greets and then stalls: the request returns at once, the attempt ends at SMTP_TIMEOUT_MS, no transaction is held', async () => {
    await withoutMainSender(async () => {
      const sockets = new Set<Socket>();
      const stalling: Server = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.write('220 stalling.example ESMTP\r\n'); // then never answers EHLO
      });
      await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', () => resolve()));
      const port = (stalling.address() as { port: number }).port;
      const slow = await startApi({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '1500' });
      try {
        const started = Date.now();
        const res = await slow.http
          .post(`${API}/user-invitations/`)
          .set(tenant.auth)
          .set('Idempotency-Key', newKey())
          .send({ email: 'stalled@example.com', full_name: 'Stalled', role: 'VIEWER' })
          .expect(201);
        expect(Date.now() - started).toBeLessThan(1000);
        const db = dataSourceOf(api.app);
        // While the mail server stalls, no session of the api sits idle inside a transaction.
        await waitFor('the stalled SMTP connection', () => sockets.size > 0);
        const idle = await db.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'`);
        expect(idle[0].n).toBe(0);
        const row = await waitFor(
          'the attempt to time out',
          async () => {
            const [r] = await db.query('SELECT attempts, last_error, sent_at FROM invitation_emails WHERE invitation_id = $1', [res.body.id]);
            return r?.last_error ? r : undefined;
          },
          10_000,
        );
        expect(row).toMatchObject({ attempts: 1, sent_at: null });
        expect(row.last_error).toMatch(/time/i);
      } finally {
        await slow.close();
        for (const socket of sockets) socket.destroy();
        await new Promise<void>((resolve) => stalling.close(() => resolve()));
      }
    });
  });

  describe('a mail server that drips its replies (one byte a second, so no idle timeout fires)', () => {
    let dripping: DrippingSmtpProxy;
    beforeEach(async () => {
      dripping = new DrippingSmtpProxy(smtp, 1000);
      await dripping.start();
    });
    afterEach(() => dripping.close());

    const emailRow = async (invitationId: string) =>
      (
        await dataSourceOf(api.app).query(
          `SELECT attempts, last_error, sent_at, failed_at, sealed_link IS NOT NULL AS sealed, next_attempt_at <= now() AS due FROM invitation_emails WHERE invitation_id = $1`,
          [invitationId],
        )
      )[0];
    const inviteThrough = async (http: TestApi['http'], email: string): Promise<string> =>
      (await http.post(`${API}/user-invitations/`).set(tenant.auth).set('Idempotency-Key', newKey()).send({ email, full_name: 'Dripped', role: 'VIEWER' }).expect(201)).body.id;

    it('ends each send at SMTP_SEND_TIMEOUT_MS, so the next e-mail is not held up; both go out once the server behaves', async () => {
      await withoutMainSender(async () => {
        const slow = await startApi({ SMTP_URL: dripping.url, SMTP_TIMEOUT_MS: '10000', SMTP_SEND_TIMEOUT_MS: '1500' });
        try {
          const started = Date.now();
          const first = await inviteThrough(slow.http, 'dripped.first@example.com');
          const second = await inviteThrough(slow.http, 'dripped.second@example.com');
          for (const id of [first, second]) {
            const row = await waitFor('the attempt to end at its deadline', async () => ((await emailRow(id))?.last_error ? emailRow(id) : undefined), 15_000);
            expect(row).toMatchObject({ attempts: 1, sent_at: null, failed_at: null, sealed: true });
            expect(row.last_error).toMatch(/SMTP_SEND_TIMEOUT_MS/);
          }
          // Two sends one after the other, each cut at 1.5 s (an idle timeout alone let one run for minutes).
          expect(Date.now() - started).toBeLessThan(10_000);
          expect(dripping.dripped).toBeGreaterThan(0);

          const before = smtp.messages.length;
          dripping.behave();
          await dataSourceOf(api.app).query('UPDATE invitation_emails SET next_attempt_at = now() WHERE invitation_id = ANY($1)', [[first, second]]);
          for (const email of ['dripped.first@example.com', 'dripped.second@example.com']) {
            await waitFor(`the e-mail to ${email}`, () => smtp.messages.slice(before).find((m) => m.to.includes(email)), 15_000);
          }
          expect(await emailRow(first)).toMatchObject({ attempts: 2, sent_at: expect.any(Date), last_error: null, sealed: false });
        } finally {
          await slow.close();
        }
      });
    });

    it('SIGTERM to a real api process mid-send exits within 10 s; the abandoned e-mail is released, not lost, and sent once the server behaves', async () => {
      await withoutMainSender(async () => {
        const port = await freePort();
        const child = AppProcess.spawn('api', 'api', port, {
          ...process.env,
          PORT: String(port),
          OPS_PORT: '0',
          PUBLIC_BASE_URL: 'http://api.test',
          SMTP_URL: dripping.url,
          SMTP_TIMEOUT_MS: '10000',
          OUTBOX_RELAY: 'off',
          INGEST_CONSUMER: 'off',
          LOG_LEVEL: 'info',
        });
        try {
          await waitShowingOutput([child], 'the api process', async () => (await child.status('/health/live')) === 200 || !child.running, 60_000);
          expect(child.running).toBe(true);
          const res = await fetch(child.url(`${API}/user-invitations/`), {
            method: 'POST',
            headers: { ...tenant.auth, 'Idempotency-Key': newKey(), 'Content-Type': 'application/json' },
            body: JSON.stringify({ email: 'sigterm@example.com', full_name: 'Sigterm', role: 'VIEWER' }),
          });
          expect(res.status).toBe(201);
          const { id } = (await res.json()) as { id: string };
          await waitShowingOutput([child], 'the send to be under way and dripping', () => dripping.connections > 0 && dripping.dripped >= 2, 20_000);

          const stopping = Date.now();
          child.kill('SIGTERM').catch(() => undefined);
          const exited = await Promise.race([child.exited, new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000))]);
          const took = Date.now() - stopping;
          expect({ exited: exited !== null, took: took < 10_000 }).toEqual({ exited: true, took: true });

          // Abandoned, not failed: due again at once, the attempt not counted, the link still sealed.
          expect(await emailRow(id)).toMatchObject({ attempts: 0, sent_at: null, failed_at: null, sealed: true, due: true });

          const before = smtp.messages.length;
          dripping.behave();
          const after = await startApi({ SMTP_URL: dripping.url });
          try {
            const mail = await waitFor('the released e-mail', () => smtp.messages.slice(before).find((m) => m.to.includes('sigterm@example.com')), 15_000);
            expect(LINK.test(mail.text)).toBe(true);
            await waitFor('the e-mail to be marked sent', async () => (await emailRow(id))?.sent_at);
            expect(await emailRow(id)).toMatchObject({ attempts: 1, sealed: false });
          } finally {
            await after.close();
          }
        } finally {
          await child.kill('SIGKILL');
        }
      });
    });
  });

  it('does not send the e-mail of an invitation revoked before it went out', async () => {
    await withoutMainSender(async () => {
      const quiet = await startApi({ SMTP_URL: 'smtp://127.0.0.1:9', SMTP_TIMEOUT_MS: '500' });
      try {
        const res = await quiet.http
          .post(`${API}/user-invitations/`)
          .set(tenant.auth)
          .set('Idempotency-Key', newKey())
          .send({ email: 'withdrawn.early@example.com', full_name: 'Early', role: 'VIEWER' })
          .expect(201);
        const db = dataSourceOf(api.app);
        await waitFor('a failed first attempt', async () => (await db.query('SELECT last_error FROM invitation_emails WHERE invitation_id = $1', [res.body.id]))[0]?.last_error);
        await api.http.delete(`${API}/user-invitations/${res.body.id}/`).set(tenant.auth).expect(204);
        await db.query('UPDATE invitation_emails SET next_attempt_at = now() WHERE invitation_id = $1', [res.body.id]);
        const [row] = await waitFor('the e-mail to be given up', async () => {
          const rows = await db.query('SELECT failed_at, sealed_link, last_error FROM invitation_emails WHERE invitation_id = $1', [res.body.id]);
          return rows[0]?.failed_at ? rows : undefined;
        });
        expect(row).toMatchObject({ sealed_link: null, last_error: 'the invitation is no longer pending' });
      } finally {
        await quiet.close();
      }
    });
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
