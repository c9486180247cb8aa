import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { defaultIngestCollaborators, TelemetryIngestService } from '@app/domain';
import { API, startListeningApi, type TestApi } from '../support/api';
import { launchBrowser } from '../support/browser';
import { backdateLifecycle, point } from '../support/devices';
import { createShipment, shipmentBody, shipmentWorld } from '../support/shipments';

describe('Public tracking page in a real browser (Chromium)', () => {
  let api: TestApi;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    const listening = await startListeningApi();
    api = listening;
    base = listening.base;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('renders status, route, position and the SVG chart without any blocked resource, and stops at the view limit', async () => {
    const world = await shipmentWorld(api, 2, undefined, 'Browser Co');
    const [a, b] = world.devices;
    const shipment = await createShipment(api, world.tenant, shipmentBody(world.refs, [a, b], { name: 'Insulin Izmir → Ankara', planned_arrival_at: new Date(Date.now() + 86_400_000).toISOString() }));
    const start = new Date(Date.now() - 12 * 3_600_000);
    for (const id of [a, b]) await backdateLifecycle(world.db, id, new Date(start.getTime() - 3_600_000));
    await world.db.query(`UPDATE shipments SET started_at = $2 WHERE id = $1`, [shipment.id, start]);
    await world.db.query(`UPDATE shipment_devices SET attached_at = $2 WHERE shipment_id = $1`, [shipment.id, start]);
    const points = [];
    for (let i = 0; i < 12 * 12; i++) {
      const at = new Date(start.getTime() + i * 5 * 60_000);
      points.push(point(a, at, { temperature: 5 + 2.5 * Math.sin(i / 10), latitude: 38.44 + i * 0.01, longitude: 27.14 + i * 0.02 }));
      points.push(point(b, at, { temperature: 4.5 + 2 * Math.cos(i / 14) }));
    }
    await new TelemetryIngestService(world.db, defaultIngestCollaborators()).ingest(points);
    const share = await api.http.put(`${API}/shipments/${shipment.id}/share/`).set(world.tenant.auth).send({ expires_in_hours: 48, max_views: 2 }).expect(200);
    const url = share.body.url as string;
    expect(url.startsWith(`${base}/track/`)).toBe(true);

    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('requestfailed', (req) => problems.push(`failed: ${req.url()}`));
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Insulin Izmir → Ankara');
    await expect(page.getByRole('status').textContent()).resolves.toBe('In transit');
    const chart = page.getByRole('img', { name: 'Temperature during the shipment (°C)' });
    await chart.waitFor();
    const box = await chart.boundingBox();
    expect(box?.width).toBeGreaterThan(500);
    expect(await page.locator('svg polyline').count()).toBeGreaterThan(0);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Origin');
    expect(text).toContain('Destination');
    expect(text).toContain('39.87000, 30.00000 (tracker');
    expect(text).not.toContain(world.tenant.accountId);
    expect(text).not.toContain(a);
    expect(problems).toEqual([]);
    mkdirSync('test-artifacts', { recursive: true });
    await page.screenshot({ path: 'test-artifacts/shipment-tracking-page.png', fullPage: true });

    // the second view is the last one; the third sees the plain refusal
    await page.reload();
    const refused = await page.goto(url);
    expect(refused?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This link is not available');
    await page.screenshot({ path: 'test-artifacts/shipment-tracking-page-unavailable.png' });
    await page.close();
  });
});
