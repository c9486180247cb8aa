import type { DataSource } from 'typeorm';
import { EVENT_TYPES } from '@app/events';
import { WebhookEndpointsService } from '@app/webhooks';
import type { AccountId } from '@app/vocabulary';
import { startApi, type TestApi } from '../support/api';
import { createAccount, dataSourceOf } from '../support/fixtures';
import { insertPanelUser, type PanelBrowser, signIn } from '../support/panel';
import { seedWebhookEvent, type SeededDelivery } from '../support/webhook-events';

const LOG = '/panel/webhook-events/';
const PAGE_SIZE = 25;
const TYPES = ['alarm.created', 'shipment.created', 'shipment.completed'];
type Outcome = 'delivered' | 'failed' | 'failing' | 'pending';

const unescape = (value: string): string => value.replace(/&amp;/g, '&');
/** The event ids of a log page's table, in order. */
const idsOf = (page: string): string[] => [...page.matchAll(/<a href="\/panel\/webhook-events\/([0-9a-f-]{36})\/"><code>/g)].map((m) => m[1]);
const linkOf = (page: string, rel: 'next' | 'prev'): string | null => {
  const match = new RegExp(`<a href="([^"]+)" rel="${rel}">`).exec(page);
  return match ? unescape(match[1]) : null;
};
/** `datetime-local` text of a time (UTC). */
const local = (at: Date): string => at.toISOString().slice(0, 16);
/** A time as the panel writes it (UTC). */
const utcText = (at: Date): string => local(at).replace('T', ' ');

interface Seeded {
  id: string;
  at: Date;
  type: string;
  outcome: Outcome;
}

describe('web panel: the webhook event log', () => {
  let api: TestApi;
  let dataSource: DataSource;
  let accountId: AccountId;
  let otherAccountId: AccountId;
  let admin: PanelBrowser;
  let manager: PanelBrowser;
  let viewer: PanelBrowser;
  let first: string;
  let second: string;
  let disabled: string;
  let foreignEvent: string;
  let oldEvent: string;
  let scriptEvent: string;
  let disabledEvent: string;
  /** Listed events, newest first (as the log orders them). */
  const listed: Seeded[] = [];
  // A whole minute, an hour ago: the time filters below are minute-precise like the form's fields.
  const base = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000);

  const get = async (path: string, status = 200, who: PanelBrowser = admin): Promise<string> => (await who.agent.get(path).expect(status)).text;
  const post = (path: string, fields: Record<string, string>, who: PanelBrowser = admin) => who.agent.post(path).type('form').send({ _csrf: who.csrf, ...fields });

  /** Follows the Older links from `start` to the end; every page's ids. */
  async function walk(start: string, who: PanelBrowser = admin, maxPages = 10): Promise<{ pages: string[][]; last: string }> {
    const pages: string[][] = [];
    let path: string | null = start;
    let last = '';
    while (path) {
      last = await get(path, 200, who);
      pages.push(idsOf(last));
      path = linkOf(last, 'next');
      if (pages.length > maxPages) throw new Error('paging does not end');
    }
    return { pages, last };
  }

  beforeAll(async () => {
    api = await startApi();
    dataSource = dataSourceOf(api.app);
    accountId = await createAccount(dataSource, 'Event Log Co');
    otherAccountId = await createAccount(dataSource, 'Other Log Co');
    const service = new WebhookEndpointsService(dataSource, { secretsKey: api.config.secretsKey, allowPrivateTargets: true });
    first = (await service.create(accountId, { url: 'https://127.0.0.1:9/first', events: [...EVENT_TYPES] })).id;
    second = (await service.create(accountId, { url: 'https://127.0.0.1:9/second', events: [...EVENT_TYPES] })).id;
    disabled = (await service.create(accountId, { url: 'https://127.0.0.1:9/disabled', events: [...EVENT_TYPES] })).id;
    await dataSource.query(`UPDATE webhook_endpoints SET enabled = false, disabled_at = now(), disabled_reason = 'test' WHERE id = $1`, [disabled]);
    const foreignEndpoint = (await service.create(otherAccountId, { url: 'https://127.0.0.1:9/foreign', events: [...EVENT_TYPES] })).id;

    // 60 events, two per minute (the same time: the keyset's tie-break on the event id), each to two endpoints.
    const shapes: Record<Outcome, SeededDelivery[]> = {
      delivered: [{ endpointId: first, status: 'succeeded' }, { endpointId: second, status: 'succeeded', attempts: 2 }],
      failed: [{ endpointId: first, status: 'succeeded' }, { endpointId: second, status: 'failed', attempts: 3 }],
      failing: [{ endpointId: first, status: 'pending', attempts: 2 }, { endpointId: second, status: 'succeeded' }],
      pending: [{ endpointId: first, status: 'pending' }, { endpointId: second, status: 'pending' }],
    };
    const outcomes: Outcome[] = ['delivered', 'failed', 'failing', 'pending'];
    for (let i = 0; i < 60; i += 1) {
      const at = new Date(base.getTime() - Math.floor(i / 2) * 60_000);
      const type = TYPES[i % 3];
      const outcome = outcomes[i % 4];
      listed.push({ id: await seedWebhookEvent(dataSource, { accountId, type, at, deliveries: shapes[outcome] }), at, type, outcome });
    }
    const scriptAt = new Date(base.getTime() + 30_000);
    scriptEvent = await seedWebhookEvent(dataSource, {
      accountId, type: 'alarm.created', at: scriptAt, deliveries: shapes.delivered,
      body: JSON.stringify({ id: 'x', type: 'alarm.created', data: { note: '<script>alert(1)</script>' } }),
    });
    listed.push({ id: scriptEvent, at: scriptAt, type: 'alarm.created', outcome: 'delivered' });
    const cancelledAt = new Date(base.getTime() - 100 * 60_000);
    disabledEvent = await seedWebhookEvent(dataSource, { accountId, type: 'shipment.created', at: cancelledAt, deliveries: [{ endpointId: disabled, status: 'cancelled', attempts: 20 }] });
    listed.push({ id: disabledEvent, at: cancelledAt, type: 'shipment.created', outcome: 'failed' });
    // The log's order: each event's first delivery, by (created_at, id), newest first.
    const order: Array<{ event_id: string }> = await dataSource.query(
      `SELECT event_id FROM (SELECT DISTINCT ON (event_id) event_id, created_at, id FROM webhook_deliveries WHERE account_id = $1 ORDER BY event_id, created_at, id) f
        ORDER BY created_at DESC, id DESC`,
      [accountId],
    );
    const rank = new Map(order.map((row, index) => [row.event_id, index]));
    listed.sort((a, b) => (rank.get(a.id) as number) - (rank.get(b.id) as number));
    expect(listed.map((e) => e.at.getTime())).toEqual([...listed.map((e) => e.at.getTime())].sort((a, b) => b - a));
    // Older than WEBHOOK_RETENTION_DAYS (30): not in the log.
    oldEvent = await seedWebhookEvent(dataSource, { accountId, type: 'alarm.created', at: new Date(Date.now() - 31 * 86_400_000), deliveries: shapes.delivered });
    foreignEvent = await seedWebhookEvent(dataSource, { accountId: otherAccountId, type: 'alarm.created', at: base, deliveries: [{ endpointId: foreignEndpoint, status: 'failed', attempts: 1 }] });

    admin = await signIn(api, (await insertPanelUser(dataSource, accountId, 'COMPANY_ADMIN')).email);
    manager = await signIn(api, (await insertPanelUser(dataSource, accountId, 'MANAGER')).email);
    viewer = await signIn(api, (await insertPanelUser(dataSource, accountId, 'VIEWER')).email);
  });
  afterAll(() => api.close());

  it('lists the events newest first, one row per event, in disjoint pages that together hold every event; Newer links walk back', async () => {
    const { pages, last } = await walk(LOG);
    expect(pages.map((p) => p.length)).toEqual([PAGE_SIZE, PAGE_SIZE, listed.length - 2 * PAGE_SIZE]);
    const all = pages.flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(listed.map((e) => e.id));
    expect(all).not.toContain(oldEvent);
    expect(all).not.toContain(foreignEvent);

    const firstPage = await get(LOG);
    expect(linkOf(firstPage, 'prev')).toBeNull();
    expect(firstPage).toContain('Webhook event log');
    expect(firstPage).toMatch(/<td data-label="Endpoints">2<\/td>/);
    // Back from the last page with the Newer links: the same pages, in reverse.
    const back: string[][] = [];
    let path = linkOf(last, 'prev');
    while (path) {
      const page = await get(path);
      back.push(idsOf(page));
      path = linkOf(page, 'prev');
    }
    expect(back).toEqual([pages[1], pages[0]]);
  });

  it('filters by type, outcome and time range (also combined and paged), with the filters kept in the form', async () => {
    for (const type of TYPES) {
      const { pages } = await walk(`${LOG}?type=${type}`);
      expect(pages.flat()).toEqual(listed.filter((e) => e.type === type).map((e) => e.id));
    }
    for (const outcome of ['delivered', 'failed', 'failing', 'pending'] as const) {
      const { pages } = await walk(`${LOG}?outcome=${outcome}`);
      expect(pages.flat()).toEqual(listed.filter((e) => e.outcome === outcome).map((e) => e.id));
    }
    const from = new Date(base.getTime() - 10 * 60_000);
    const to = new Date(base.getTime() - 5 * 60_000);
    const inRange = (e: Seeded) => e.at >= from && e.at < to;
    const ranged = await walk(`${LOG}?from=${local(from)}&to=${local(to)}`);
    expect(ranged.pages.flat()).toEqual(listed.filter(inRange).map((e) => e.id));
    expect(ranged.pages.flat()).toHaveLength(10);
    expect(ranged.last).toContain(`value="${local(from)}"`);
    // ISO with a zone is accepted too.
    const zoned = await walk(`${LOG}?from=${encodeURIComponent(from.toISOString().replace('Z', '+00:00'))}&to=${encodeURIComponent(to.toISOString())}`);
    expect(zoned.pages.flat()).toEqual(ranged.pages.flat());
    // As the panel writes times ("2026-11-26 08:00", "… UTC"), in UTC text fields, never the browser's local-time picker.
    const written = await walk(`${LOG}?from=${encodeURIComponent(utcText(from))}&to=${encodeURIComponent(`${utcText(to)} UTC`)}`);
    expect(written.pages.flat()).toEqual(ranged.pages.flat());
    expect(written.last).toContain(`<input type="text" id="from" name="from" value="${utcText(from)}" placeholder="YYYY-MM-DD HH:MM"`);
    expect(written.last).not.toContain('datetime-local');

    const combined = await walk(`${LOG}?type=alarm.created&outcome=failed&from=${local(new Date(base.getTime() - 3_600_000))}&to=`);
    expect(combined.pages.flat()).toEqual(listed.filter((e) => e.type === 'alarm.created' && e.outcome === 'failed').map((e) => e.id));
    expect(combined.last).toMatch(/<option value="alarm.created" selected>/);
    expect(combined.last).toMatch(/<option value="failed" selected>/);

    // A filter with more than one page: the pages keep the filter.
    const delivered = await walk(`${LOG}?outcome=delivered&type=`);
    expect(delivered.pages.length).toBeGreaterThanOrEqual(1);
    const busy = await walk(`${LOG}?from=${local(new Date(base.getTime() - 3_600_000))}`);
    expect(busy.pages.length).toBe(3);
    expect(busy.pages.flat()).toEqual(listed.filter((e) => e.at >= new Date(base.getTime() - 3_600_000)).map((e) => e.id));

    expect(await get(`${LOG}?type=shipment.completed&outcome=pending&from=${local(new Date(base.getTime() + 60_000))}`)).toContain('No events match these filters.');
  });

  it('refuses bad filter input with the form and a problem, never a 500', async () => {
    const cases: Array<[string, string]> = [
      ['from=yesterday', 'The start is not a date and time.'],
      ['to=2026-02-30T10:00', 'The end is not a date and time.'],
      [`from=${local(base)}&to=${local(new Date(base.getTime() - 60_000))}`, 'The end must be later than the start.'],
      ['type=alarm.exploded', 'Choose an event type from the list.'],
      ['outcome=lost', 'Choose a delivery outcome from the list.'],
      ['type=alarm.created&type=shipment.created', 'Give this filter once.'],
      ['cursor=not-a-cursor', 'That page link is out of date or was changed.'],
      ['event_id=42', 'An event ID has 36 characters'],
    ];
    for (const [query, message] of cases) {
      const page = await get(`${LOG}?${query}`, 400);
      expect(page).toContain(message);
      expect(page).toContain('<div class="errors" role="alert">');
      expect(page).toContain('<title>Error: webhook event log');
      expect(page).not.toContain('<table class="responsive" id="events">');
    }
    // A cursor of another list (other filters) is refused too, not replayed.
    const paged = linkOf(await get(`${LOG}?from=${local(new Date(base.getTime() - 3_600_000))}`), 'next') as string;
    const cursor = new URL(paged, 'http://x').searchParams.get('cursor') as string;
    expect(await get(`${LOG}?cursor=${encodeURIComponent(cursor)}`, 400)).toContain('That page link is out of date');
    expect(await get(`${LOG}?outcome=failed&cursor=${encodeURIComponent(cursor)}`, 400)).toContain('That page link is out of date');
  });

  it('finds an event by its exact id, and says "not found" for another company’s or an unknown one', async () => {
    const target = listed[7].id;
    const found = await admin.agent.get(`${LOG}?event_id=${target}`).expect(303);
    expect(found.headers.location).toBe(`${LOG}${target}/`);
    expect((await admin.agent.get(`${LOG}?event_id=%20${target.toUpperCase()}%20`).expect(303)).headers.location).toBe(`${LOG}${target}/`);
    // Outside the listed period the event's page still opens: its payload may be gone, its attempts are kept.
    expect((await admin.agent.get(`${LOG}?event_id=${oldEvent}`).expect(303)).headers.location).toBe(`${LOG}${oldEvent}/`);
    for (const id of [foreignEvent, '0193b7a2-5c1e-7d40-9a8b-2f4e6c8d0a1b']) {
      const page = await get(`${LOG}?event_id=${id}`, 404);
      expect(page).toContain('No event with this ID was queued for your company’s webhook endpoints.');
      expect(page).toContain(`value="${id}"`);
    }
    await get(`${LOG}${foreignEvent}/`, 404);
    await get(`${LOG}not-a-uuid/`, 404);
  });

  it('shows an event’s payload pretty-printed and escaped, and its attempts per endpoint', async () => {
    const page = await get(`${LOG}${scriptEvent}/`);
    expect(page).toContain('<pre class="payload" id="payload" tabindex="0"><code>{\n  &quot;id&quot;: &quot;x&quot;,');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert(1)');

    const failed = listed.find((e) => e.outcome === 'failed' && e.id !== disabledEvent) as Seeded;
    const detail = await get(`${LOG}${failed.id}/`);
    expect(detail).toContain('https://127.0.0.1:9/first');
    expect(detail).toContain('https://127.0.0.1:9/second');
    expect(detail.match(/<td data-label="Status code">503<\/td>/g)).toHaveLength(3);
    expect(detail.match(/<td data-label="Status code">204<\/td>/g)).toHaveLength(1);
    expect(detail).toContain('HTTP 503 &lt;from receiver&gt;');
    expect(detail).toMatch(/<dt>Outcome<\/dt><dd><span class="status bad">Failed<\/span><\/dd>/);
    expect(detail.match(/Resend to this endpoint/g)).toHaveLength(2);
  });

  it('lets administrators and managers resend to an endpoint of the event (CSRF, per company); others read only', async () => {
    const failed = listed.filter((e) => e.outcome === 'failed' && e.id !== disabledEvent)[1];
    const resendPath = `${LOG}${failed.id}/resend/`;
    const viewerPage = await get(`${LOG}${failed.id}/`, 200, viewer);
    expect(viewerPage).not.toContain('Resend to this endpoint');
    // Every role reads Settings · Webhooks now: the endpoint links to its page for a viewer too.
    expect(viewerPage).toContain(`<a href="/panel/webhooks/${second}/">`);
    const viewerLog = await get(LOG, 200, viewer);
    expect(viewerLog).toContain(failed.id);
    expect(viewerLog).toContain('<p class="breadcrumb"><a href="/panel/webhooks/">Settings · Webhooks</a></p>');
    expect(viewerPage).toContain('<a href="/panel/webhook-events/" aria-current="page">Webhook event log</a>');
    expect((await post(resendPath, { endpoint_id: second }, viewer)).status).toBe(403);
    expect((await manager.agent.post(resendPath).type('form').send({ endpoint_id: second })).status).toBe(403);
    expect((await manager.agent.post(resendPath).type('form').send({ _csrf: 'forged', endpoint_id: second })).status).toBe(403);
    const resends = () => dataSource.query(`SELECT endpoint_id, origin, status FROM webhook_deliveries WHERE event_id = $1 AND origin = 'resend'`, [failed.id]);
    expect(await resends()).toEqual([]);

    const done = await post(resendPath, { endpoint_id: second }, manager).expect(303);
    expect(done.headers.location).toBe(`${LOG}${failed.id}/?notice=resend_queued`);
    expect(await resends()).toEqual([{ endpoint_id: second, origin: 'resend', status: 'pending' }]);
    const after = await get(done.headers.location as string, 200, manager);
    expect(after).toContain('The event was queued to be sent again.');
    expect(after).toContain('<dt>Sent by hand</dt><dd>1 time</dd>');
    // The endpoint that failed is queued again: the event is pending now, not failed.
    expect(after).toMatch(/<dt>Outcome<\/dt><dd><span class="status muted">Pending<\/span><\/dd>/);

    // Another company's event, an endpoint the event was not queued for, a disabled endpoint.
    expect((await post(`${LOG}${foreignEvent}/resend/`, { endpoint_id: second })).status).toBe(404);
    expect((await post(resendPath, { endpoint_id: disabled })).status).toBe(404);
    const disabledPage = await get(`${LOG}${disabledEvent}/`);
    expect(disabledPage).not.toContain('Resend to this endpoint');
    expect(disabledPage).toContain('re-enable it</a> to send the event again');
    expect((await post(`${LOG}${disabledEvent}/resend/`, { endpoint_id: disabled }).expect(303)).headers.location).toBe(`${LOG}${disabledEvent}/?notice=endpoint_disabled`);
    expect(await resends()).toHaveLength(1);
  });

  it('bounds the rows one page reads: a rare outcome ends the page early with a note and an Older link that goes on', async () => {
    // Pending now: the seeded ones and the one resent above.
    const before = (await walk(`${LOG}?outcome=pending`)).pages.flat();
    expect(before).toEqual(expect.arrayContaining(listed.filter((e) => e.outcome === 'pending').map((e) => e.id)));
    // 3,000 delivered events (6,000 deliveries) older than the others, then one more pending event behind them.
    const olderStart = new Date(base.getTime() - 3 * 3_600_000);
    await dataSource.query(
      `WITH events AS (SELECT gen_random_uuid() AS id, $2::timestamptz - n * interval '1 second' AS at FROM generate_series(1, 3000) n)
       INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, attempts, created_at, completed_at)
       SELECT gen_random_uuid(), $1, e.endpoint_id, ev.id, 'alarm.resolved', 'event', '\\x7b7d'::bytea, 'succeeded', 1, ev.at, ev.at
         FROM events ev CROSS JOIN unnest($3::uuid[]) AS e(endpoint_id)`,
      [accountId, olderStart, [first, second]],
    );
    const lastAt = new Date(olderStart.getTime() - 3_600_000);
    const last = await seedWebhookEvent(dataSource, { accountId, type: 'alarm.resolved', at: lastAt, deliveries: [{ endpointId: first, status: 'pending' }] });
    const pending = [...before, last];
    const { pages } = await walk(`${LOG}?outcome=pending`);
    expect(pages.flat()).toEqual(pending);
    expect(pages.length).toBe(2);
    expect(pages[0]).toHaveLength(pending.length - 1);
    const firstPage = await get(`${LOG}?outcome=pending`);
    expect(firstPage).toContain('<p class="notice" id="partial">This page looked at events back to <time datetime=');
    expect(linkOf(firstPage, 'next')).not.toBeNull();
    // Unfiltered, the same events page normally (25 a page), older ones after the seeded ones.
    const all = await walk(LOG, admin, 200);
    expect(all.pages.flat()).toHaveLength(listed.length + 3001);
    expect(new Set(all.pages.flat()).size).toBe(listed.length + 3001);
    expect(all.pages.flat().slice(0, listed.length)).toEqual(listed.map((e) => e.id));
    expect(all.pages.flat().at(-1)).toBe(last);
  });
});
