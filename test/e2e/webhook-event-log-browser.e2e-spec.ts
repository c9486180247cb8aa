import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { EVENT_TYPES } from '@app/events';
import type { AccountId } from '@app/vocabulary';
import { WebhookEndpointsService } from '@app/webhooks';
import { startListeningApi, type TestApi } from '../support/api';
import { launchBrowser, recordPageProblems } from '../support/browser';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { insertPanelUser, PANEL_PASSWORD } from '../support/panel';
import { seedWebhookEvent } from '../support/webhook-events';

const ARTIFACTS = 'test-artifacts';
const NO_HORIZONTAL_SCROLL = 'document.documentElement.scrollWidth <= window.innerWidth';

describe('webhook event log in a real browser: filter, page, open an event, resend', () => {
  let api: TestApi;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  let endpointId: string;
  let accountId: AccountId;
  /** Failed alarm.created events, newest first. */
  const failedAlarms: string[] = [];
  const problems: string[] = [];

  const shot = (name: string, target: Page = page, fullPage = true) => target.screenshot({ path: `${ARTIFACTS}/event-log-${name}.png`, fullPage });
  const see = (locator: Locator, text: string) => locator.filter({ hasText: text }).first().waitFor({ timeout: 10_000 });
  const seeHeading = (name: string) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor({ timeout: 10_000 });
  const rowIds = async (): Promise<string[]> => page.locator('#events tbody [data-label="Event ID"]').allTextContents();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const listening = await startListeningApi();
    api = listening;
    base = listening.base;
    const dataSource = dataSourceOf(api.app);
    accountId = await createAccount(dataSource, 'Browser Log Co');
    const service = new WebhookEndpointsService(dataSource, { secretsKey: api.config.secretsKey, allowPrivateTargets: true });
    endpointId = (await service.create(accountId, { url: 'https://127.0.0.1:9/receiver', events: [...EVENT_TYPES] })).id;
    // 40 events a minute apart: every third a failed alarm.created (14), the rest delivered.
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    for (let i = 0; i < 40; i += 1) {
      const failed = i % 3 === 0;
      const id = await seedWebhookEvent(dataSource, {
        accountId,
        type: failed ? 'alarm.created' : 'shipment.created',
        at: new Date(now - (i + 1) * 60_000),
        deliveries: [{ endpointId, status: failed ? 'failed' : 'succeeded', attempts: failed ? 3 : 1 }],
      });
      if (failed) failedAlarms.push(id);
    }
    await insertPanelUser(dataSource, accountId, 'MANAGER').then((user) => dataSource.query('UPDATE users SET email = $1 WHERE id = $2', ['mo@browser-log.example', user.id]));
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    recordPageProblems(page, problems);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('signs in and reaches the log from the navigation; pages with Older/Newer links', async () => {
    await page.goto(`${base}/panel/sign-in/`);
    await page.getByLabel('E-mail address').fill('mo@browser-log.example');
    await page.getByLabel('Password').fill(PANEL_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await seeHeading('Overview');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhook event log' }).click();
    await seeHeading('Webhook event log');
    expect(await rowIds()).toHaveLength(25);
    const firstPage = await rowIds();
    await shot('01-log');
    await page.getByRole('navigation', { name: 'Pages of events' }).first().getByRole('link', { name: 'Older events →' }).click();
    await page.waitForURL(/cursor=/);
    const secondPage = await rowIds();
    expect(secondPage).toHaveLength(15);
    expect(secondPage.filter((id) => firstPage.includes(id))).toEqual([]);
    expect(await page.getByRole('link', { name: 'Older events →' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Pages of events' }).first().getByRole('link', { name: '← Newer events' }).click();
    await page.waitForLoadState();
    expect(await rowIds()).toEqual(firstPage);
  });

  it('filters by type, outcome (keyboard) and time range, finds an event by id, shows its payload and attempts, and resends it', async () => {
    await page.getByLabel('Event type').selectOption('alarm.created');
    await page.getByLabel('Delivery outcome').selectOption('failed');
    // Keyboard: the filter button is reached and pressed without the mouse.
    await page.getByRole('button', { name: 'Apply filters' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/outcome=failed/);
    expect(await page.getByLabel('Event type').inputValue()).toBe('alarm.created');
    expect(await rowIds()).toEqual(failedAlarms);
    const outcomes = await page.locator('#events tbody [data-label="Outcome"]').allTextContents();
    expect(new Set(outcomes)).toEqual(new Set(['Failed']));
    await shot('02-filtered');

    // A time range: the 10 minutes that hold failed alarms 2..4 (1-based: minutes 4, 7, 10 ago).
    const fmt = (at: Date) => at.toISOString().slice(0, 16);
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    await page.getByLabel('From (UTC)').fill(fmt(new Date(now - 11 * 60_000)));
    await page.getByLabel('Until (UTC, not included)').fill(fmt(new Date(now - 3 * 60_000)));
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/from=/);
    expect(await rowIds()).toEqual(failedAlarms.slice(1, 4));

    // Search by id, from the keyboard, lands on the event's page.
    const target = failedAlarms[2];
    await page.getByLabel('Find an event by its ID').fill(target);
    await page.getByLabel('Find an event by its ID').press('Enter');
    await seeHeading(`Event ${target}`);
    await see(page.locator('#payload'), `"id": "${target}"`);
    const statusCodes = await page.locator('section [data-label="Status code"]').allTextContents();
    expect(statusCodes).toEqual(['503', '503', '503']);
    await shot('03-event');

    await page.getByRole('button', { name: 'Resend to this endpoint' }).click();
    await see(page.locator('.flash'), 'The event was queued to be sent again.');
    const rows = await dataSourceOf(api.app).query(`SELECT origin, status FROM webhook_deliveries WHERE event_id = $1 ORDER BY created_at`, [target]);
    expect(rows).toEqual([{ origin: 'event', status: 'failed' }, { origin: 'resend', status: 'pending' }]);
    await see(page.locator('main dl.summary'), 'Pending');
    await page.getByRole('link', { name: 'Webhook event log' }).first().click();
    await seeHeading('Webhook event log');
  });

  it('is usable on a phone and ran without script or CSP errors', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${base}/panel/webhook-events/?type=alarm.created`);
    expect(await phone.evaluate(NO_HORIZONTAL_SCROLL)).toBe(true);
    await shot('04-phone-log', phone, false);
    await phone.goto(`${base}/panel/webhook-events/${failedAlarms[0]}/`);
    expect(await phone.evaluate(NO_HORIZONTAL_SCROLL)).toBe(true);
    await shot('05-phone-event', phone, false);
    await phone.close();
    expect(problems).toEqual([]);
  });

  it('filters by endpoint (issue 31 item 4): only events sent to it, with their outcome there', async () => {
    const dataSource = dataSourceOf(api.app);
    const service = new WebhookEndpointsService(dataSource, { secretsKey: api.config.secretsKey, allowPrivateTargets: true });
    const second = (await service.create(accountId, { url: 'https://127.0.0.1:9/second', events: [...EVENT_TYPES] })).id;
    const at = (minutesAgo: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - minutesAgo * 60_000 + 30_000);
    const onlySecond = [
      await seedWebhookEvent(dataSource, { accountId, type: 'alarm.resolved', at: at(5), deliveries: [{ endpointId: second, status: 'succeeded' }] }),
      await seedWebhookEvent(dataSource, { accountId, type: 'alarm.resolved', at: at(8), deliveries: [{ endpointId: second, status: 'failed', attempts: 7 }] }),
    ];
    // Failed at the first endpoint, delivered at the second: "Failed" in the whole log, "Delivered" for the second.
    const both = await seedWebhookEvent(dataSource, {
      accountId,
      type: 'alarm.resolved',
      at: at(11),
      deliveries: [{ endpointId, status: 'failed', attempts: 7 }, { endpointId: second, status: 'succeeded' }],
    });
    await page.goto(`${base}/panel/webhook-events/`);
    await page.getByLabel('Endpoint').selectOption({ label: 'https://127.0.0.1:9/second' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(new RegExp(`endpoint=${second}`));
    expect(await rowIds()).toEqual([...onlySecond, both]);
    expect(await page.locator('#events tbody [data-label="Outcome"]').allTextContents()).toEqual(['Delivered', 'Failed', 'Delivered']);
    await shot('06-endpoint-filter');
    // With the outcome too: the one that failed there.
    await page.getByLabel('Delivery outcome').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/outcome=failed/);
    expect(await rowIds()).toEqual([onlySecond[1]]);
    // Bulk resend (issue 31 item 4): the listed events, to the chosen endpoint, once each.
    const bulk = page.locator('#bulk-resend');
    expect(await bulk.getAttribute('data-count')).toBe('1');
    await shot('07-bulk-resend-offered');
    await bulk.getByRole('button', { name: 'Resend 1 event to this endpoint' }).click();
    await see(page.locator('.flash'), 'The listed events were queued to be sent again to the endpoint, once each.');
    expect(new URL(page.url()).searchParams.get('endpoint')).toBe(second);
    expect(await dataSource.query(`SELECT event_id, status FROM webhook_deliveries WHERE endpoint_id = $1 AND origin = 'resend'`, [second])).toEqual([{ event_id: onlySecond[1], status: 'pending' }]);
    // Pending there now: not "failed" any more, and nothing left to resend under this filter.
    expect(await rowIds()).toEqual([]);
    expect(await bulk.getAttribute('data-count')).toBe('0');
    await shot('08-bulk-resend-queued');
    // The whole log still says the shared event failed (its worst endpoint).
    await page.goto(`${base}/panel/webhook-events/?type=alarm.resolved`);
    expect(await page.locator('#events tbody tr').filter({ hasText: both }).locator('[data-label="Outcome"]').textContent()).toBe('Failed');
    // Another company's endpoint, or no endpoint at all, is a named problem on the form (400), not an empty list.
    const stranger = (await service.create(await createAccount(dataSource, 'Other Log Co'), { url: 'https://127.0.0.1:9/other', events: [...EVENT_TYPES] })).id;
    const refused = await page.goto(`${base}/panel/webhook-events/?endpoint=${stranger}`);
    expect(refused?.status()).toBe(400);
    await see(page.locator('#endpoint-error'), 'Choose an endpoint from the list.');
    expect(await page.locator('#endpoint option').allTextContents()).toEqual(['Any endpoint', 'https://127.0.0.1:9/receiver', 'https://127.0.0.1:9/second']);
    expect(problems).toEqual([]);
  });
});
