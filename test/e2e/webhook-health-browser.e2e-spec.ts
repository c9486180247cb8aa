import type { INestApplication } from '@nestjs/common';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '@app/config';
import { createLogger } from '@app/observability';
import type { AccountId } from '@app/vocabulary';
import { WebhookEndpointsService } from '@app/webhooks';
import { createDispatcherApp } from '../../apps/dispatcher/src/dispatcher-app';
import { startListeningApi, type TestApi } from '../support/api';
import { launchBrowser, recordPageProblems } from '../support/browser';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { generateTestCertificate, HttpsReceiver, type TestCertificate } from '../support/https-receiver';
import { insertPanelUser, PANEL_PASSWORD } from '../support/panel';
import { waitFor } from '../support/wait';

const ARTIFACTS = 'test-artifacts';
const HOOK_PATH = '/health-hook';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Evaluated in the page (the test's TypeScript has no DOM types). */
const NO_HORIZONTAL_SCROLL = 'document.documentElement.scrollWidth <= window.innerWidth';
const chartData = (id: string): string =>
  `JSON.stringify([...document.querySelectorAll('#${id} g.hour')].map((g) => ({ ...g.dataset })))`;

interface HourData {
  hour: string;
  succeeded: string;
  failed: string;
  p50: string;
  p99: string;
}

/** Issue 17 item 1: delivery health per endpoint, seen in a real browser after a receiver outage. */
describe('webhook delivery health in the panel (Chromium)', () => {
  let certificate: TestCertificate;
  let receiver: HttpsReceiver;
  let api: TestApi & { base: string };
  let dispatcher: INestApplication;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let accountId: AccountId;
  let endpointId: string;
  const problems: string[] = [];

  const signIn = async (target: Page, email: string): Promise<void> => {
    await target.goto(`${api.base}/panel/sign-in/`);
    await target.getByLabel('E-mail address').fill(email);
    await target.getByLabel('Password').fill(PANEL_PASSWORD);
    await target.getByRole('button', { name: 'Sign in' }).click();
    await target.waitForURL(`${api.base}/panel/`);
  };
  const expectPng = (path: string): void => {
    const png = readFileSync(path);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.length).toBeGreaterThan(2000);
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    certificate = generateTestCertificate();
    receiver = await HttpsReceiver.start(certificate);
    api = await startListeningApi();
    const dispatcherConfig = loadConfig({ ...process.env, WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0,0', WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_POLL_INTERVAL_MS: '100' });
    dispatcher = await createDispatcherApp(dispatcherConfig, createLogger('silent', 'dispatcher-test'), { ca: certificate.cert });
    const dataSource = dataSourceOf(api.app);
    accountId = await createAccount(dataSource, 'Health Pharma');
    const endpoints = api.app.get(WebhookEndpointsService);
    endpointId = (await endpoints.create(accountId, { url: receiver.url(HOOK_PATH), events: ['alarm.created'], description: 'ERP receiver' })).id;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    recordPageProblems(page, problems);
  });

  afterAll(async () => {
    await browser?.close();
    await dispatcher?.close();
    await api?.close();
    await receiver?.close();
  });

  it('charts failed then successful attempts in their hour, with the state, a table, and the overview success rate', async () => {
    const endpoints = api.app.get(WebhookEndpointsService);
    const dataSource = dataSourceOf(api.app);
    // The receiver is down (500) for three attempts, then back: the first event succeeds on its 4th attempt.
    receiver.script(HOOK_PATH, [{ status: 500 }, { status: 500 }, { status: 500 }], { status: 200 });
    await endpoints.sendTestEvent(accountId, endpointId);
    await waitFor('the first event to be delivered', () => receiver.received(HOOK_PATH).length >= 4);
    await endpoints.sendTestEvent(accountId, endpointId);
    await waitFor('both deliveries to close', async () => {
      const open = await dataSource.query(`SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'pending'`, [endpointId]);
      const logged = await dataSource.query(`SELECT 1 FROM webhook_attempts WHERE endpoint_id = $1`, [endpointId]);
      return open.length === 0 && logged.length === 5;
    });
    // The attempt log is the truth to compare with (an hour may turn during the test).
    const attempts: Array<{ hour: Date; succeeded: number; failed: number }> = await dataSource.query(
      `SELECT date_trunc('hour', attempted_at, 'UTC') AS hour, count(*) FILTER (WHERE outcome = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE outcome <> 'succeeded')::int AS failed
         FROM webhook_attempts WHERE endpoint_id = $1 GROUP BY 1 ORDER BY 1`,
      [endpointId],
    );
    expect(attempts.reduce((n, a) => n + a.failed, 0)).toBe(3);
    expect(attempts.reduce((n, a) => n + a.succeeded, 0)).toBe(2);

    const admin = await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN');
    await signIn(page, admin.email);

    // Issue 31 item 4: the Overview (where sign-in lands) says each endpoint's success rate of the last 24 hours too.
    const overviewRate = page.locator(`#webhook-rates li[data-endpoint="${endpointId}"]`);
    await expect(overviewRate.locator('.success-rate').textContent()).resolves.toBe('40.0 % of 5 attempts');
    await expect(overviewRate.getByRole('link').textContent()).resolves.toBe(receiver.url(HOOK_PATH));
    await page.locator('main').screenshot({ path: `${ARTIFACTS}/webhook-overview-rates.png` });

    // Overview: one line per endpoint with its success rate over the last 24 hours.
    await page.goto(`${api.base}/panel/webhooks/`);
    const rate = page.locator('table tbody tr').first().locator('[data-label="Last 24 hours"]');
    await expect(rate.textContent()).resolves.toBe('40.0 % of 5 attempts');

    await page.getByRole('link', { name: receiver.url(HOOK_PATH) }).click();
    await page.getByRole('heading', { level: 2, name: 'Delivery health' }).waitFor();
    await expect(page.locator('#health-state').textContent()).resolves.toMatch(/^Enabled · 0 failed attempts in a row so far/);

    // The chart's data: every hour of the last 24, the attempts in the hour they were made.
    const day = JSON.parse((await page.evaluate(chartData('health-24h'))) as string) as HourData[];
    expect(day).toHaveLength(24);
    for (const expected of attempts) {
      const hour = day.find((h) => h.hour === expected.hour.toISOString());
      expect(hour).toMatchObject({ succeeded: String(expected.succeeded), failed: String(expected.failed) });
      expect(Number(hour?.p50)).toBeGreaterThan(0);
      expect(Number(hour?.p99)).toBeGreaterThanOrEqual(Number(hour?.p50));
    }
    expect(day.filter((h) => !attempts.some((a) => a.hour.toISOString() === h.hour)).every((h) => h.succeeded === '0' && h.failed === '0' && h.p50 === '')).toBe(true);
    expect(await page.locator('#health-24h .bars rect.failed').count()).toBe(attempts.filter((a) => a.failed > 0).length);
    expect(await page.locator('#health-24h .bars rect.succeeded').count()).toBe(attempts.filter((a) => a.succeeded > 0).length);
    // The week shows the same attempts; the chart names itself for assistive technology.
    const week = page.locator('#health-7d');
    await expect(week.getAttribute('data-hours')).resolves.toBe('168');
    await expect(week.getAttribute('data-failed')).resolves.toBe('3');
    await expect(week.getAttribute('data-succeeded')).resolves.toBe('2');
    await expect(page.getByRole('img', { name: 'Delivery attempts and latency per hour, last 24 hours' }).count()).resolves.toBe(1);
    await expect(page.locator('#health-24h-summary').textContent()).resolves.toMatch(/^5 attempts: 2 succeeded, 3 failed \(40\.0 % succeeded\)\. Latency p50 ≤ [\d.,]+ m?s, p99 ≤ [\d.,]+ m?s\.$/);

    // Keyboard: the table with the same figures opens from the keyboard alone.
    const onDaySummary = `document.activeElement?.tagName === 'SUMMARY' && document.activeElement.closest('section')?.querySelector('#health-24h') !== null`;
    let focused = false;
    for (let i = 0; i < 60 && !focused; i++) {
      await page.keyboard.press('Tab');
      focused = (await page.evaluate(onDaySummary)) === true;
    }
    expect(focused).toBe(true);
    await page.keyboard.press('Enter');
    const table = page.getByRole('table', { name: 'Last 24 hours: hours with attempts, newest first' });
    await table.waitFor();
    await expect(table.locator('tbody tr').count()).resolves.toBe(attempts.length);
    await expect(table.locator('tbody tr').first().locator('[data-label="Failed"]').textContent()).resolves.toBe(String(attempts[attempts.length - 1].failed));

    // Issue 31 item 5: the last hour per minute — the same five attempts, each in its minute.
    const perMinute: Array<{ minute: Date; succeeded: number; failed: number }> = await dataSource.query(
      `SELECT date_trunc('minute', attempted_at, 'UTC') AS minute, count(*) FILTER (WHERE outcome = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE outcome <> 'succeeded')::int AS failed
         FROM webhook_attempts WHERE endpoint_id = $1 GROUP BY 1 ORDER BY 1`,
      [endpointId],
    );
    const hourChart = page.locator('#health-1h');
    await expect(hourChart.getAttribute('data-minutes')).resolves.toBe('60');
    await expect(hourChart.getAttribute('data-attempts')).resolves.toBe('5');
    const minutes = await hourChart.locator('g.minute').evaluateAll((groups) =>
      groups.map((g) => ({ minute: g.getAttribute('data-minute'), succeeded: g.getAttribute('data-succeeded'), failed: g.getAttribute('data-failed') })),
    );
    expect(minutes).toHaveLength(60);
    for (const expected of perMinute) {
      expect(minutes.find((m) => m.minute === expected.minute.toISOString())).toEqual({ minute: expected.minute.toISOString(), succeeded: String(expected.succeeded), failed: String(expected.failed) });
    }
    await expect(page.getByRole('img', { name: 'Delivery attempts and latency per minute, last hour' }).count()).resolves.toBe(1);
    await hourChart.screenshot({ path: `${ARTIFACTS}/webhook-health-last-hour.png` });

    await page.locator('#health').screenshot({ path: `${ARTIFACTS}/webhook-health.png` });
    expectPng(`${ARTIFACTS}/webhook-health.png`);
    await page.screenshot({ path: `${ARTIFACTS}/webhook-health-page.png`, fullPage: true });
  });

  it('keeps the phone layout: the chart scales to the screen, no horizontal scrolling', async () => {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${api.base}/panel/webhooks/${endpointId}`);
    expect(await phone.evaluate(NO_HORIZONTAL_SCROLL)).toBe(true);
    const box = await phone.locator('#health-24h').boundingBox();
    expect(box?.width).toBeGreaterThan(250);
    expect(box?.width).toBeLessThanOrEqual(390);
    await phone.locator('#health').screenshot({ path: `${ARTIFACTS}/webhook-health-phone.png` });
    expectPng(`${ARTIFACTS}/webhook-health-phone.png`);
    await phone.goto(`${api.base}/panel/webhooks/`);
    expect(await phone.evaluate(NO_HORIZONTAL_SCROLL)).toBe(true);
    await phone.close();
  });

  it('shows the disabled state with its reason and time to a manager too', async () => {
    await api.app.get(WebhookEndpointsService).disable(accountId, endpointId, 'receiver under maintenance');
    const manager = await insertPanelUser(dataSourceOf(api.app), accountId, 'MANAGER');
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const managerPage = await other.newPage();
    await signIn(managerPage, manager.email);
    await managerPage.goto(`${api.base}/panel/webhooks/${endpointId}`);
    const state = managerPage.locator('#health-state');
    await expect(state.textContent()).resolves.toMatch(/^Disabled since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: receiver under maintenance · 0 failed attempts in a row so far\.$/);
    await expect(managerPage.locator('#health-7d').getAttribute('data-attempts')).resolves.toBe('5');
    await other.close();
  });

  it('shows a viewer the health chart and the attempts of an endpoint, without any form or action', async () => {
    const viewer = await insertPanelUser(dataSourceOf(api.app), accountId, 'VIEWER');
    const other = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const viewerPage = await other.newPage();
    viewerPage.on('pageerror', (error) => problems.push(error.message));
    await signIn(viewerPage, viewer.email);
    // The endpoint is still disabled (previous test): the banner leads to the page, without "re-enable".
    const banner = viewerPage.locator('.banner');
    await expect(banner.textContent()).resolves.not.toMatch(/re-enable/i);
    await banner.getByRole('link', { name: 'See it in Settings · Webhooks' }).click();
    await viewerPage.getByRole('heading', { level: 1, name: 'Settings · Webhooks', exact: true }).waitFor();
    await expect(viewerPage.locator('table tbody tr').first().locator('[data-label="Last 24 hours"]').textContent()).resolves.toBe('40.0 % of 5 attempts');
    expect(await viewerPage.getByRole('link', { name: 'Add an endpoint' }).count()).toBe(0);

    await viewerPage.getByRole('link', { name: receiver.url(HOOK_PATH) }).click();
    await viewerPage.getByRole('heading', { level: 2, name: 'Delivery health' }).waitFor();
    await expect(viewerPage.locator('#read-only-note').textContent()).resolves.toContain('Company administrators and managers manage them');
    await expect(viewerPage.locator('#health-7d').getAttribute('data-failed')).resolves.toBe('3');
    await expect(viewerPage.locator('#health-7d').getAttribute('data-succeeded')).resolves.toBe('2');
    const day = JSON.parse((await viewerPage.evaluate(chartData('health-24h'))) as string) as HourData[];
    expect(day).toHaveLength(24);
    expect(day.reduce((n, h) => n + Number(h.failed), 0)).toBe(3);
    expect(day.reduce((n, h) => n + Number(h.succeeded), 0)).toBe(2);
    await expect(viewerPage.locator('#attempts tbody tr').count()).resolves.toBe(5);
    // No form anywhere in the page's content (the header's sign-out is the only form), no action button or link.
    expect(await viewerPage.locator('main form').count()).toBe(0);
    expect(await viewerPage.locator('main button').count()).toBe(0);
    expect(await viewerPage.locator('#attempts th', { hasText: 'Action' }).count()).toBe(0);
    expect(await viewerPage.locator('main a[href*="rotate-secret"], main a[href*="recover"], main a[href$="/new/"]').count()).toBe(0);
    await viewerPage.screenshot({ path: `${ARTIFACTS}/webhook-health-viewer.png`, fullPage: true });
    expectPng(`${ARTIFACTS}/webhook-health-viewer.png`);
    await other.close();
    expect(problems).toEqual([]);
  });
  it('on a phone: state and chart on the first screen, attempts 20 a page (issue 31 item 5)', async () => {
    // 45 more attempts in the log (50 in all), straight into the table: only the list reads them.
    const dataSource = dataSourceOf(api.app);
    const [delivery] = await dataSource.query('SELECT id, event_id, event_type FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at LIMIT 1', [endpointId]);
    await dataSource.query(
      `INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number, attempted_at, outcome, status_code, error, duration_ms)
       SELECT gen_random_uuid(), $1, $2, $3, $4, $5, 1, now() - make_interval(secs => n), 'succeeded', 200, NULL, 12 FROM generate_series(1, 45) n`,
      [accountId, endpointId, delivery.id, delivery.event_id, delivery.event_type],
    );
    const phone = await context.newPage();
    recordPageProblems(phone, problems);
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${api.base}/panel/webhooks/${endpointId}`);
    // The state and the last 24 hours' chart start within the first screen.
    const chart = await phone.locator('#health-24h').boundingBox();
    const state = await phone.locator('#health-state').boundingBox();
    expect(state?.y).toBeLessThan(844);
    expect(chart?.y).toBeLessThan(844);
    await phone.screenshot({ path: `${ARTIFACTS}/webhook-endpoint-phone-first-screen.png` });

    const attempts = phone.locator('#attempts');
    await expect(attempts.locator('tbody tr').count()).resolves.toBe(20);
    await expect(attempts.locator('caption').textContent()).resolves.toBe('Delivery attempts 1–20 of the last 50, newest first');
    const height = Number(await phone.evaluate('document.documentElement.scrollHeight'));
    expect(height).toBeLessThan(14_000); // 20 attempt cards, not all 50
    expect(await phone.evaluate(NO_HORIZONTAL_SCROLL)).toBe(true);
    await phone.screenshot({ path: `${ARTIFACTS}/webhook-endpoint-phone.png`, fullPage: true });

    const pager = phone.getByRole('navigation', { name: 'Pages of delivery attempts' }).first();
    await pager.getByRole('link', { name: 'Older attempts →' }).click();
    await phone.locator('#attempts[data-page="2"]').waitFor();
    await expect(phone.locator('#attempts tbody tr').count()).resolves.toBe(20);
    await phone.getByRole('navigation', { name: 'Pages of delivery attempts' }).getByRole('link', { name: 'Older attempts →' }).click();
    await phone.locator('#attempts[data-page="3"]').waitFor();
    await expect(phone.locator('#attempts tbody tr').count()).resolves.toBe(10);
    await expect(phone.locator('#attempts caption').textContent()).resolves.toBe('Delivery attempts 41–50 of the last 50, newest first');
    expect(await phone.getByRole('link', { name: 'Older attempts →' }).count()).toBe(0);
    await phone.getByRole('link', { name: '← Newer attempts' }).click();
    await phone.locator('#attempts[data-page="2"]').waitFor();
    // A page that is not one is the nearest that is (no error page for a hand-edited address).
    await phone.goto(`${api.base}/panel/webhooks/${endpointId}?attempts_page=999`);
    await expect(phone.locator('#attempts').getAttribute('data-page')).resolves.toBe('3');
    await phone.goto(`${api.base}/panel/webhooks/${endpointId}?attempts_page=-1`);
    await expect(phone.locator('#attempts').getAttribute('data-page')).resolves.toBe('1');
    await phone.close();
    expect(problems).toEqual([]);
  });
});
