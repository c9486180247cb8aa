import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { startListeningApi, type TestApi } from '../support/api';
import { launchBrowser, recordPageProblems } from '../support/browser';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { insertPanelUser, PANEL_PASSWORD, signIn } from '../support/panel';

const ARTIFACTS = 'test-artifacts';
/** Evaluated in the page (the test's TypeScript has no DOM types). */
const NO_HORIZONTAL_SCROLL = 'document.documentElement.scrollWidth <= window.innerWidth';

/**
 * Issue 30, item 3 in the panel: a company administrator reads the audit trail in a browser — the
 * reason typed into a form reaches the record, filters narrow the list, a record shows each
 * field before and after, times are UTC — and pages through it; any other role is refused.
 */
describe('the panel audit log', () => {
  let api: TestApi & { base: string };
  let db: DataSource;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  const shot = (name: string, target: Page = page, fullPage = true) => target.screenshot({ path: `${ARTIFACTS}/audit-log-${name}.png`, fullPage });
  const seeHeading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor({ timeout: 10_000 });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startListeningApi();
    db = dataSourceOf(api.app);
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    recordPageProblems(page, problems);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('an administrator gives a reason in a form and finds it, with each field before and after, in the audit log', async () => {
    const accountId = await createAccount(db, 'Audited Pharma');
    const admin = await insertPanelUser(db, accountId, 'COMPANY_ADMIN');
    await page.goto(`${api.base}/panel/sign-in/`);
    await page.getByLabel('E-mail address').fill(admin.email);
    await page.getByLabel('Password').fill(PANEL_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await seeHeading('Overview');

    // A credential made and revoked with a reason each.
    await page.goto(`${api.base}/panel/credentials/new/`);
    await page.getByLabel('Name', { exact: true }).fill('ERP sync');
    await page.getByLabel('devices:read').check();
    await page.getByLabel('Reason for change').fill('CR-42: ERP onboarding');
    await page.getByRole('button', { name: 'Create credential' }).click();
    await seeHeading('Credential created');
    const [credential] = (await db.query(`SELECT id FROM api_credentials WHERE owner_account_id = $1`, [accountId])) as Array<{ id: string }>;
    await page.goto(`${api.base}/panel/credentials/${credential.id}/revoke/`);
    await page.getByLabel('Reason for change').fill('CR-43: ERP retired');
    await page.getByRole('button', { name: 'Revoke credential' }).click();
    await seeHeading('API credentials');

    const records = (await db.query(
      `SELECT actor_type, actor_id, reason, operation FROM audit_events WHERE account_id = $1 AND resource_type = 'api_credential' AND resource_id = $2 ORDER BY seq`,
      [accountId, credential.id],
    )) as Array<{ actor_type: string; actor_id: string; reason: string; operation: string }>;
    expect(records).toEqual([
      { actor_type: 'panel_user', actor_id: admin.id, reason: 'CR-42: ERP onboarding', operation: 'create' },
      { actor_type: 'panel_user', actor_id: admin.id, reason: 'CR-43: ERP retired', operation: 'update' },
    ]);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click();
    await seeHeading('Audit log');
    await page.getByLabel('Resource type').fill('api_credential');
    await page.getByLabel('Resource ID').fill(credential.id);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator('#audit-records tbody tr').nth(1).waitFor();
    expect(await page.locator('#audit-records tbody tr').count()).toBe(2);
    // Newest first; times labelled UTC.
    expect(await page.locator('#audit-records tbody tr').first().locator('td[data-label="Reason"]').textContent()).toBe('CR-43: ERP retired');
    expect(await page.locator('#audit-records thead').textContent()).toContain('Time (UTC)');
    expect(await page.locator('#audit-records tbody tr').first().locator('time').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    await shot('01-list');

    await page.locator('#audit-records tbody tr').first().getByRole('link').click();
    await seeHeading('Audit record');
    const revokedAt = page.locator('#changes tbody tr').filter({ has: page.locator('th', { hasText: 'revoked_at' }) });
    expect(await revokedAt.locator('td[data-label="Before"]').textContent()).toBe('empty');
    expect(await revokedAt.locator('td[data-label="After"]').textContent()).toMatch(/^"\d{4}-\d{2}-\d{2}T/);
    expect(await page.locator('#record').textContent()).toContain('CR-43: ERP retired');
    expect(await page.locator('#record').textContent()).toContain('Panel user');
    await shot('02-record');
    const phone = await page.context().newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(page.url());
    expect(await phone.evaluate(NO_HORIZONTAL_SCROLL)).toBe(true);
    await shot('03-record-phone', phone, false);
    await phone.close();

    // A secret's record says only that it changed.
    await db.query(`UPDATE api_credentials SET secret_hash = 'another-hash' WHERE id = $1`, [credential.id]);
    const [rotation] = (await db.query(`SELECT id FROM audit_events WHERE account_id = $1 AND resource_id = $2 ORDER BY seq DESC LIMIT 1`, [accountId, credential.id])) as Array<{ id: string }>;
    await page.goto(`${api.base}/panel/audit-log/${rotation.id}/`);
    expect(await page.locator('#changes').textContent()).toContain('Secret: changed');
    expect(await page.content()).not.toContain('another-hash');
    expect(problems).toEqual([]);
  });

  it('pages with a cursor, and refuses a changed cursor and bad filters with the form (400), never a 500', async () => {
    const accountId = await createAccount(db, 'Busy Pharma');
    const admin = await signIn(api, (await insertPanelUser(db, accountId, 'COMPANY_ADMIN')).email);
    // 60 changes of the account's profile: more than one page of 50.
    for (let i = 0; i < 60; i++) await db.query(`UPDATE accounts SET name = $2 WHERE id = $1`, [accountId, `Busy Pharma ${i}`]);
    const ids = ((await db.query(`SELECT id FROM audit_events WHERE account_id = $1 AND resource_type = 'account' ORDER BY occurred_at DESC, id DESC`, [accountId])) as Array<{ id: string }>).map((row) => row.id);
    expect(ids.length).toBeGreaterThanOrEqual(60);
    const shown = (text: string) => [...text.matchAll(/href="\/panel\/audit-log\/([0-9a-f-]{36})\/"/g)].map((match) => match[1]);

    const first = await admin.agent.get('/panel/audit-log/?resource_type=account').expect(200);
    expect(shown(first.text)).toEqual(ids.slice(0, 50));
    const older = /href="([^"]+)" rel="next"/.exec(first.text)?.[1].replace(/&amp;/g, '&');
    expect(older).toBeDefined();
    const second = await admin.agent.get(older as string).expect(200);
    expect(shown(second.text)).toEqual(ids.slice(50));
    expect(second.text).not.toContain('rel="next"');

    const tampered = `${(older as string).slice(0, -3)}AAA`;
    expect((await admin.agent.get(tampered).expect(400)).text).toContain('That page link is out of date');
    expect((await admin.agent.get('/panel/audit-log/?from=yesterday').expect(400)).text).toContain('The start is not a date and time');
    // From/Until are UTC text as the panel writes times, never the browser's local-time picker.
    const upToNow = (await admin.agent.get(`/panel/audit-log/?resource_type=account&to=${encodeURIComponent('2999-01-01 00:00 UTC')}`).expect(200)).text;
    expect(shown(upToNow)).toEqual(ids.slice(0, 50));
    expect(upToNow).toContain('<input type="text" id="to" name="to" value="2999-01-01 00:00 UTC" placeholder="YYYY-MM-DD HH:MM"');
    expect(upToNow).not.toContain('datetime-local');
    await admin.agent.get('/panel/audit-log/?resource_type=DROP%20TABLE').expect(400);
    await admin.agent.get('/panel/audit-log/?actor=a&actor=b').expect(400);
    await admin.agent.get('/panel/audit-log/not-a-uuid/').expect(404);
  });

  it.each(['MANAGER', 'OPERATOR', 'VIEWER'])('a %s has no Audit log link and gets the panel’s forbidden page', async (role) => {
    const accountId = await createAccount(db, `${role} Pharma`);
    await db.query(`UPDATE accounts SET name = 'renamed' WHERE id = $1`, [accountId]);
    const [record] = (await db.query(`SELECT id FROM audit_events WHERE account_id = $1 LIMIT 1`, [accountId])) as Array<{ id: string }>;
    const person = await signIn(api, (await insertPanelUser(db, accountId, role)).email);
    const home = await person.agent.get('/panel/').expect(200);
    expect(home.text).not.toContain('/panel/audit-log/');
    const refused = await person.agent.get('/panel/audit-log/').expect(403);
    expect(refused.text).toContain('You cannot use this page');
    expect(refused.text).not.toContain('audit-records');
    expect(refused.text).not.toContain(record.id);
    const detail = await person.agent.get(`/panel/audit-log/${record.id}/`).expect(403);
    expect(detail.text).toContain('You cannot use this page');
    expect(detail.text).not.toContain('Changed fields');
  });
});
