import { createHash, createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import type { DataSource } from 'typeorm';
import request from 'supertest';
import { loadConfig } from '@app/config';
import { defaultIngestCollaborators, TelemetryIngestService } from '@app/domain';
import { createApiApp } from '../../apps/api/src/bootstrap';
import { createLogger } from '@app/observability';
import { API, startApi, type TestApi } from '../support/api';
import { createTenant } from '../support/fixtures';
import { backdateLifecycle, point } from '../support/devices';
import { createShipment, shipmentBody, shipmentWorld, type ShipmentWorld } from '../support/shipments';

const BASE = 'https://track.example.test';
const TOKEN_URL = new RegExp(`^${BASE.replace(/\./g, '\\.')}/track/[A-Za-z0-9_-]{43}$`);
const SECURITY_HEADERS = {
  'content-security-policy': expect.stringMatching(/^default-src 'none'; style-src 'unsafe-inline';.*frame-ancestors 'none'/),
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
};

describe('Share records and the public tracking page', () => {
  let api: TestApi;
  let world: ShipmentWorld;
  let db: DataSource;
  let next = 0;

  beforeAll(async () => {
    api = await startApi({ PUBLIC_BASE_URL: BASE });
    world = await shipmentWorld(api, 12, undefined, 'Sharer');
    db = world.db;
  });
  afterAll(() => api.close());

  const newShipment = () => createShipment(api, world.tenant, shipmentBody(world.refs, [world.devices[next++]], { name: 'Vaccines to the clinic', receiver_id: world.refs.receiver }));
  const shareOf = (id: number) => `${API}/shipments/${id}/share/`;
  const put = (id: number, body: Record<string, unknown>) => api.http.put(shareOf(id)).set(world.tenant.auth).send(body);
  const view = (url: string) => api.raw.get(new URL(url).pathname);

  it('shows a disabled record before sharing; PUT and every GET show the same working URL', async () => {
    const shipment = await newShipment();
    expect((await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body).toEqual({
      enabled: false, url: null, expires_at: null, max_views: null, view_count: 0, created_at: null, revoked_at: null,
    });
    const before = Date.now();
    const created = await put(shipment.id, { expires_in_hours: 24, max_views: 3 }).expect(200);
    expect(created.body).toMatchObject({ enabled: true, url: expect.stringMatching(TOKEN_URL), max_views: 3, view_count: 0, revoked_at: null });
    expect(new Date(created.body.expires_at).getTime() - before).toBeGreaterThanOrEqual(24 * 3_600_000 - 1000);
    const status = await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200);
    expect(status.body).toEqual(created.body);
    await view(status.body.url).expect(200);
    expect((await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body).toMatchObject({ url: created.body.url, view_count: 1 });

    // only the token's hash is stored, and the raw token is nowhere in the database
    const token = (created.body.url as string).split('/').pop() as string;
    const [row] = await db.query(`SELECT token_hash FROM shipment_shares WHERE shipment_id = $1`, [shipment.id]);
    expect(row.token_hash).toEqual(createHash('sha256').update(token).digest());
    const [{ n }] = await db.query(
      `SELECT (SELECT count(*) FROM shipment_shares s WHERE s::text LIKE $1) + (SELECT count(*) FROM outbox_events o WHERE o::text LIKE $1)
            + (SELECT count(*) FROM idempotency_records i WHERE i::text LIKE $1) AS n`,
      [`%${token}%`],
    );
    expect(Number(n)).toBe(0);
  });

  it('counts each view and stops at the limit; the refused page reveals nothing and carries the same strict headers', async () => {
    const shipment = await newShipment();
    const { url } = (await put(shipment.id, { expires_in_hours: 1, max_views: 2 }).expect(200)).body;
    const first = await view(url).expect(200);
    expect(first.headers).toMatchObject({ ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' });
    expect(first.text).toContain('Vaccines to the clinic');
    expect(first.text).toContain('Origin');
    expect(first.text).toContain('Destination');
    expect(first.text).toContain('In transit');
    expect(first.text).toContain('<svg');
    for (const secret of [world.tenant.accountId, world.devices[next - 1], world.refs.origin, world.refs.receiver, 'Hospital', 'REF-1', `/shipments/${shipment.id}`]) {
      expect({ secret, leaked: first.text.includes(secret) }).toEqual({ secret, leaked: false });
    }
    expect(first.text).not.toMatch(/<script|<img|<link|https?:\/\//);
    await view(url).expect(200);
    const over = await view(url).expect(404);
    expect(over.headers).toMatchObject(SECURITY_HEADERS);
    const unknown = await api.raw.get(`/track/${'A'.repeat(43)}`).expect(404);
    const garbage = await api.raw.get('/track/not-a-token').expect(404);
    expect(over.text).toBe(unknown.text);
    expect(garbage.text).toBe(unknown.text);
    expect(unknown.text).not.toContain('Vaccines');
    expect((await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body).toMatchObject({ enabled: false, view_count: 2, max_views: 2 });
  });

  it('answers HEAD like GET without counting a view (link checkers must not use up a link)', async () => {
    const shipment = await newShipment();
    const { url } = (await put(shipment.id, { expires_in_hours: 1, max_views: 1 }).expect(200)).body;
    const path = new URL(url).pathname;
    for (let i = 0; i < 3; i++) {
      const head = await api.raw.head(path).expect(200);
      expect(head.headers).toMatchObject({ ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' });
    }
    expect((await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body).toMatchObject({ view_count: 0 });
    await view(url).expect(200);
    // used up: HEAD now gets the refused answer too, and still counts nothing
    await api.raw.head(path).expect(404);
    await api.raw.head(`/track/${'A'.repeat(43)}`).expect(404);
    expect((await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body).toMatchObject({ view_count: 1, enabled: false });
  });

  it('never counts more views than the limit under concurrent views', async () => {
    const shipment = await newShipment();
    const { url } = (await put(shipment.id, { expires_in_hours: 1, max_views: 5 }).expect(200)).body;
    const statuses = (await Promise.all(Array.from({ length: 20 }, () => view(url)))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 404)).toHaveLength(15);
    const [row] = await db.query(`SELECT view_count FROM shipment_shares WHERE shipment_id = $1`, [shipment.id]);
    expect(row.view_count).toBe(5);
  });

  it('refreshing issues a new link (the old one dies at once) and resets the views; revoking ends it at once', async () => {
    const shipment = await newShipment();
    const first = (await put(shipment.id, { expires_in_hours: 1, max_views: 10 }).expect(200)).body;
    await view(first.url).expect(200);
    const refreshed = (await put(shipment.id, { expires_at: new Date(Date.now() + 90 * 86_400_000).toISOString(), max_views: 10 }).expect(200)).body;
    expect(refreshed.url).not.toBe(first.url);
    expect(refreshed.view_count).toBe(0);
    await view(first.url).expect(404);
    await view(refreshed.url).expect(200);
    await api.http.delete(shareOf(shipment.id)).set(world.tenant.auth).expect(204);
    await view(refreshed.url).expect(404);
    const revoked = (await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body;
    expect(revoked).toMatchObject({ enabled: false, url: null, view_count: 1, revoked_at: expect.any(String) });
    await api.http.delete(shareOf(shipment.id)).set(world.tenant.auth).expect(204);
    // sharing again after a revocation works
    const again = (await put(shipment.id, { expires_in_hours: 1, max_views: 1 }).expect(200)).body;
    expect(again).toMatchObject({ enabled: true, revoked_at: null });
    await view(again.url).expect(200);
  });

  it('ends with the expiry, and with the deletion of the shipment', async () => {
    const shipment = await newShipment();
    const { url } = (await put(shipment.id, { expires_in_hours: 1, max_views: 10 }).expect(200)).body;
    await view(url).expect(200);
    await db.query(`UPDATE shipment_shares SET expires_at = now() - interval '1 second' WHERE shipment_id = $1`, [shipment.id]);
    await view(url).expect(404);
    expect((await api.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body.enabled).toBe(false);
    const other = await newShipment();
    const link = (await put(other.id, { expires_in_hours: 1, max_views: 10 }).expect(200)).body.url;
    await api.http.delete(`${API}/shipments/${other.id}/`).set(world.tenant.auth).expect(204);
    await view(link).expect(404);
  });

  it('bounds the expiry (1 hour to 90 days) and the view limit (1 to 10000)', async () => {
    const shipment = await newShipment();
    const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ max_views: 5 }, 'expires_at', 'required'],
      [{ expires_at: inHours(2), expires_in_hours: 2, max_views: 5 }, 'expires_at', 'ambiguous_expiry'],
      [{ expires_at: inHours(0.5), max_views: 5 }, 'expires_at', 'out_of_range'],
      [{ expires_at: inHours(90 * 24 + 1), max_views: 5 }, 'expires_at', 'out_of_range'],
      [{ expires_in_hours: 0, max_views: 5 }, 'expires_in_hours', 'min'],
      [{ expires_in_hours: 2161, max_views: 5 }, 'expires_in_hours', 'max'],
      [{ expires_in_hours: 1, max_views: 0 }, 'max_views', 'min'],
      [{ expires_in_hours: 1, max_views: 10_001 }, 'max_views', 'max'],
      [{ expires_in_hours: 1 }, 'max_views', 'isInt'],
      [{ expires_in_hours: 1, max_views: 1, token: 'mine' }, 'token', 'unknown_field'],
    ];
    for (const [body, field, code] of cases) {
      const res = await put(shipment.id, body).expect(400);
      expect({ body, errors: res.body.errors }).toEqual({ body, errors: expect.arrayContaining([expect.objectContaining({ field, code })]) });
    }
    await put(shipment.id, { expires_in_hours: 2160, max_views: 10_000 }).expect(200);
    await put(shipment.id, { expires_at: inHours(1), max_views: 1 }).expect(200);
  });

  it('needs shipments:read and shipments:share to read the status, shipments:share to change it', async () => {
    const shipment = await newShipment();
    const readOnly = await createTenant(api.app, ['shipments:read']);
    const shareOnly = await createTenant(api.app, ['shipments:share']);
    for (const tenant of [readOnly, shareOnly]) await api.http.get(shareOf(shipment.id)).set(tenant.auth).expect(403);
    await api.http.put(shareOf(shipment.id)).set(readOnly.auth).send({ expires_in_hours: 1, max_views: 1 }).expect(403);
    await api.http.delete(shareOf(shipment.id)).set(readOnly.auth).expect(403);
  });

  it('shows the last position, the temperature chart and the delivery of a completed shipment', async () => {
    const device = world.devices[next];
    const shipment = await newShipment();
    await backdateLifecycle(db, device, new Date(Date.now() - 86_400_000));
    const start = new Date(Date.now() - 4 * 3_600_000);
    await db.query(`UPDATE shipments SET started_at = $2 WHERE id = $1`, [shipment.id, start]);
    await db.query(`UPDATE shipment_devices SET attached_at = $2 WHERE shipment_id = $1`, [shipment.id, start]);
    await new TelemetryIngestService(db, defaultIngestCollaborators()).ingest(
      Array.from({ length: 24 }, (_, i) => point(device, new Date(start.getTime() + i * 10 * 60_000), { temperature: 4 + (i % 5), latitude: 38.4 + i * 0.01, longitude: 27.1 })),
    );
    await api.http.post(`${API}/shipments/${shipment.id}/complete/`).set(world.tenant.auth).expect(200);
    const { url } = (await put(shipment.id, { expires_in_hours: 1, max_views: 5 }).expect(200)).body;
    const page = await view(url).expect(200);
    expect(page.text).toContain('Delivered');
    expect(page.text).toContain('38.63000, 27.10000');
    expect(page.text).toContain('min 4.0 °C · average 5.9 °C · max 8.0 °C');
    expect(page.text).toMatch(/<polyline points="[^"]+"/);
  });

  it('gives no working link to someone holding only the database rows, and none after SECRETS_KEY changes', async () => {
    const shipment = await newShipment();
    const { url } = (await put(shipment.id, { expires_in_hours: 2, max_views: 50 }).expect(200)).body;
    const [row] = await db.query('SELECT token_hash, link_nonce, account_id FROM shipment_shares WHERE shipment_id = $1', [shipment.id]);
    expect(row.link_nonce).toHaveLength(16);
    const attempts = [
      row.token_hash.toString('base64url').slice(0, 43),
      Buffer.concat([row.link_nonce, row.link_nonce]).toString('base64url').slice(0, 43),
      // The derivation, with the database's values but a guessed key (the documented dev key, or none).
      createHmac('sha256', Buffer.alloc(32)).update(`${row.account_id}:${shipment.id}:`).update(row.link_nonce).digest('base64url'),
      createHmac('sha256', 'dev-only-secrets-key-change-me-0123456789abcdef').update(`${row.account_id}:${shipment.id}:`).update(row.link_nonce).digest('base64url'),
    ];
    for (const token of attempts) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await api.raw.get(`/track/${token}`).expect(404);
    }
    await view(url).expect(200);

    // Last in this file: a second app replaces the process-wide passport strategy of the first.
    const rotated = await startApi({ PUBLIC_BASE_URL: BASE, SECRETS_KEY: 'a-rotated-secrets-key-0123456789-abcdefghij' });
    try {
      await rotated.raw.get(new URL(url).pathname).expect(404);
      const status = (await rotated.http.get(shareOf(shipment.id)).set(world.tenant.auth).expect(200)).body;
      expect(status).toMatchObject({ enabled: true, url: null }); // refresh to get a link under the new key
      const refreshed = (await rotated.http.put(shareOf(shipment.id)).set(world.tenant.auth).send({ expires_in_hours: 2, max_views: 50 }).expect(200)).body;
      await rotated.raw.get(new URL(refreshed.url).pathname).expect(200);
    } finally {
      await rotated.close();
    }
  });
});

describe('Request logs and the share token', () => {
  it('logs /track/<token> requests with the token redacted', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'info';
    const app = await createApiApp(loadConfig(), createLogger('info', 'api', sink));
    try {
      const token = 'Z'.repeat(43);
      await request(app.getHttpServer()).get(`/track/${token}`).expect(404);
      expect(lines.join('\n')).not.toContain(token);
      expect(lines.map((l) => JSON.parse(l) as { req?: { path: string } }).find((e) => e.req?.path?.startsWith('/track/'))?.req?.path).toBe('/track/[redacted]');
    } finally {
      process.env.LOG_LEVEL = previous;
      await app.close();
    }
  });
});
