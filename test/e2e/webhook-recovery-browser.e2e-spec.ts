import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { AccountId } from '@app/vocabulary';
import { launchBrowser, recordPageProblems } from '../support/browser';
import { createAccount } from '../support/fixtures';
import { insertPanelUser, PANEL_PASSWORD, signIn } from '../support/panel';
import { waitFor } from '../support/wait';
import { WebhookDispatcherHarness } from './support/webhook-dispatcher-harness';

const ARTIFACTS = 'test-artifacts';
const HOOK = '/recovery-browser';
/** Evaluated in the page (the test's TypeScript has no DOM types). */
const NO_HORIZONTAL_SCROLL = 'document.documentElement.scrollWidth <= window.innerWidth';

/**
 * Issue 17, "Done when": a company administrator whose receiver was down sees the disabled
 * endpoint, re-enables it, recovers the missed events in one action from the form offered, and
 * the receiver gets each of them once. A viewer has no recover button and its POST is refused.
 */
describe('webhook recovery in a real browser', () => {
  const harness = new WebhookDispatcherHarness({ listening: true });
  let browser: Browser;
  let page: Page;
  let base: string;
  let accountId: AccountId;
  let endpointId: string;
  const missed: string[] = [];
  /** Requests the receiver had when it came back (all answered 503). */
  let mark = 0;
  const problems: string[] = [];

  const shot = (name: string, target: Page = page, fullPage = true) => target.screenshot({ path: `${ARTIFACTS}/recovery-${name}.png`, fullPage });
  const seeHeading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor({ timeout: 10_000 });
  const perEvent = (): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const r of harness.receiver.received(HOOK).slice(mark)) {
      const id = String(r.headers['x-service-event-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await harness.setUp();
    base = harness.base as string;
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    recordPageProblems(page, problems);

    // The receiver is down for the outage: 20 consecutive failures disable the endpoint; events go on meanwhile.
    accountId = await createAccount(harness.dataSource, 'Recovery Pharma');
    harness.receiver.script(HOOK, [], { status: 503 });
    const hook = await harness.endpoint(HOOK, ['alarm.created'], accountId);
    endpointId = hook.id;
    for (let i = 0; i < 3; i++) missed.push((await harness.publish(accountId)).id);
    await waitFor('the endpoint to be disabled', async () => (await harness.service.get(accountId, endpointId)).status === 'disabled', 30_000);
    for (let i = 0; i < 2; i++) missed.push((await harness.publish(accountId)).id);
    await waitFor('no pending delivery', async () => (await harness.deliveries(endpointId)).every((d) => d.status !== 'pending'));
    harness.receiver.script(HOOK, [], { status: 200 }); // back
    mark = harness.receiver.received(HOOK).length;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await harness.tearDown();
  });

  it('an administrator sees the disabled endpoint, re-enables it, recovers in one action, and the receiver gets each missed event once', async () => {
    const admin = await insertPanelUser(harness.dataSource, accountId, 'COMPANY_ADMIN');
    await page.goto(`${base}/panel/sign-in/`);
    await page.getByLabel('E-mail address').fill(admin.email);
    await page.getByLabel('Password').fill(PANEL_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await seeHeading('Overview');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings · Webhooks' }).click();
    await seeHeading('Settings · Webhooks');
    expect(await page.locator('td[data-label="Status"]').first().textContent()).toContain('Disabled');
    await page.locator('table a').first().click();
    await page.getByText('This endpoint is disabled', { exact: false }).first().waitFor();
    await shot('01-disabled');
    // Nothing to recover into while disabled: the page says to re-enable first.
    expect(await page.getByRole('button', { name: 'Recover failed deliveries' }).count()).toBe(0);
    const endpointPage = page.url();

    // Issue 31 item 1: the events of the outage are in the event log at their own time before any
    // recovery; those published while the endpoint was disabled read "Not sent".
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhook event log' }).click();
    await seeHeading('Webhook event log');
    await page.getByLabel('Delivery outcome').selectOption('not_sent');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/outcome=not_sent/);
    const notSent = await page.locator('#events tbody [data-label="Event ID"]').allTextContents();
    expect(notSent.map((id) => id.trim())).toEqual(missed.slice(3).reverse());
    expect(new Set(await page.locator('#events tbody [data-label="Outcome"]').allTextContents())).toEqual(new Set(['Not sent']));
    await shot('01b-event-log-not-sent');
    await page.locator('#events tbody a').first().click();
    await page.getByText('Not sent: the endpoint was disabled').first().waitFor();
    await shot('01c-event-not-sent');
    await page.goto(endpointPage);

    await page.getByRole('button', { name: 'Re-enable endpoint' }).click();
    await seeHeading('Recover failed deliveries');
    await page.locator('.flash').filter({ hasText: 'The endpoint is enabled again' }).waitFor();
    // Pre-filled with the minute the endpoint started failing: the whole outage.
    const since = page.getByLabel('Recover failed deliveries since (UTC)');
    const [first] = await harness.dataSource.query('SELECT min(created_at) AS at FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
    const failingSince = new Date(Math.floor(first.at.getTime() / 60_000) * 60_000).toISOString();
    // Issue 31 item 3: written as every other time (UTC, labelled), never in the browser's locale; the count is previewed.
    expect(await since.inputValue()).toBe(failingSince.slice(0, 16).replace('T', ' '));
    expect(await since.getAttribute('type')).toBe('text');
    await page.getByText(/Year-month-day hour:minute in UTC, not your local time\. It is now \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/).waitFor();
    const preview = page.locator('#recovery-preview');
    expect(await preview.getAttribute('data-count')).toBe('5');
    expect(await preview.textContent()).toBe(`From ${failingSince.slice(0, 19).replace('T', ' ')} UTC on: 5 events will be sent again.`);
    await shot('02-offered');
    const phone = await page.context().newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(page.url());
    expect(await phone.evaluate(NO_HORIZONTAL_SCROLL)).toBe(true);
    await shot('03-offered-phone', phone, false);
    await phone.close();

    // Presets: each fills the field and previews its count, nothing is sent.
    const presets = page.getByRole('navigation', { name: 'Quick choices' });
    expect(await presets.getByRole('link').allTextContents()).toEqual(['Last hour', 'Since it started failing', 'Last 24 hours']);
    await presets.getByRole('link', { name: 'Last 24 hours' }).click();
    // The link names its choice, so it stays marked even when the minute turns before it is followed.
    await page.waitForURL(/[?&]preset=last-24-hours/);
    await presets.locator('a[aria-current="true"]').filter({ hasText: 'Last 24 hours' }).waitFor();
    expect(await preview.getAttribute('data-count')).toBe('5');
    // A time typed after the preview (now, to the second: after every event) is previewed, not sent.
    await since.fill(new Date().toISOString().slice(0, 19).replace('T', ' '));
    await since.press('Enter');
    await page.locator('#recovery-preview[data-count="0"]').waitFor();
    await page.getByText('No event will be sent again').waitFor();
    await shot('02b-preview-edited');
    // A future time is refused with its reason, in UTC.
    await since.fill('2099-01-01 00:00 UTC');
    await page.getByRole('button', { name: 'Preview count' }).click();
    await page.locator('#since-error').filter({ hasText: 'This time is in the future.' }).waitFor();
    expect(await harness.dataSource.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'", [endpointId])).toEqual([{ n: 0 }]);
    await presets.getByRole('link', { name: 'Since it started failing' }).click();
    await presets.locator('a[aria-current="true"]').filter({ hasText: 'Since it started failing' }).waitFor();
    expect(await since.inputValue()).toBe(failingSince.slice(0, 16).replace('T', ' '));
    expect(await preview.getAttribute('data-count')).toBe('5');

    // One action, from the keyboard: Enter in the pre-filled, previewed field submits the form.
    await since.press('Enter');
    await seeHeading('Recovery queued');
    expect(await page.locator('#recovery-result').getAttribute('data-queued')).toBe('5');
    await page.getByText('5 events queued').waitFor();
    await shot('04-queued');

    await waitFor('each missed event to arrive', () => missed.every((id) => perEvent().get(id) === 1), 20_000);
    await waitFor('the recovered deliveries to close', async () => (await harness.deliveries(endpointId)).every((d) => d.status !== 'pending'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(Object.fromEntries(perEvent())).toEqual(Object.fromEntries(missed.map((id) => [id, 1])));

    // Back on the endpoint page. Issue 31 item 2: each attempt says who queued it and where its delivery ended.
    await page.getByRole('link', { name: 'Back to the endpoint' }).click();
    await page.locator('#attempts').waitFor();
    const rows = await page.locator('#attempts tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [tr.querySelector('[data-label="Origin"]')?.textContent ?? '', tr.querySelector('[data-label="Result"]')?.textContent ?? '']),
    );
    const recovered = rows.filter(([origin]) => origin === 'Recovery');
    expect(recovered).toEqual(Array.from({ length: 5 }, () => ['Recovery', 'Succeeded']));
    const outage = rows.filter(([origin]) => origin !== 'Recovery');
    expect(outage.length).toBeGreaterThan(0);
    expect(outage.every(([origin]) => /^(Automatic|Retry \d+)$/.test(origin))).toBe(true);
    // The outage's deliveries are closed: none still "will retry"; those cut short by the auto-disable say so.
    expect(outage.map(([, result]) => result)).not.toContain('Failed, will retry');
    expect(outage.map(([, result]) => result)).toContain('Failed; retries cancelled: endpoint disabled');
    await shot('05-attempt-origins');

    // Recovering again queues nothing.
    await page.getByRole('button', { name: 'Recover failed deliveries' }).click();
    await seeHeading('Recovery queued');
    expect(await page.locator('#recovery-result').getAttribute('data-queued')).toBe('0');
    expect(problems).toEqual([]);
  });

  it('a viewer has no recover button and its POST is refused', async () => {
    const viewer = await signIn(harness.api, (await insertPanelUser(harness.dataSource, accountId, 'VIEWER')).email);
    const before = await harness.dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId]);
    // The endpoint's page is readable by every role; the recovery form and its POST are not.
    const detail = await viewer.agent.get(`/panel/webhooks/${endpointId}/`).expect(200);
    expect(detail.text).not.toContain('Recover failed deliveries');
    expect(detail.text).not.toContain(`action="/panel/webhooks/${endpointId}/recover/"`);
    await viewer.agent.get(`/panel/webhooks/${endpointId}/recover/`).expect(403);
    await viewer.agent.post(`/panel/webhooks/${endpointId}/recover/`).type('form').send({ _csrf: viewer.csrf, since: new Date(Date.now() - 3_600_000).toISOString() }).expect(403);
    // Another company's administrator: the endpoint does not exist for them.
    const stranger = await signIn(harness.api, (await insertPanelUser(harness.dataSource, await createAccount(harness.dataSource, 'Stranger Co'), 'COMPANY_ADMIN')).email);
    await stranger.agent.post(`/panel/webhooks/${endpointId}/recover/`).type('form').send({ _csrf: stranger.csrf, since: new Date(Date.now() - 3_600_000).toISOString() }).expect(404);
    expect(await harness.dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [endpointId])).toEqual(before);
  });
});
