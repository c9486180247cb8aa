import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CredentialsService } from '@app/domain';
import { WebhookEndpointsService } from '@app/webhooks';
import { toAccountId } from '@app/vocabulary';
import { API, startApi, type TestApi } from '../support/api';
import { createRecord, newKey } from '../support/catalogue';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { insertPanelUser, type PanelBrowser, signIn } from '../support/panel';
import { createShipment, shipmentBody, shipmentWorld } from '../support/shipments';
import { insertUser } from '../support/users';
import routeScopes from '../route-scopes.json';

/**
 * "Say nothing about other tenants", checked route by route: for every API and panel route that
 * takes a record id (test/route-scopes.json), the answer to another tenant's id is the answer to
 * an id that does not exist, byte for byte once the id itself is blanked out. A route whose
 * record kind has no foreign fixture here is listed in NOT_COVERED_HERE with where it is tested.
 */
const NOT_COVERED_HERE: Record<string, string> = {
  ':alarm_id': 'alarms.e2e-spec.ts (another tenant’s alarm, an unknown one and a malformed id: 404)',
  ':report_id': 'reports.e2e-spec.ts (another tenant’s report: 404)',
  ':event_id': 'webhook-event-log.e2e-spec.ts (another tenant’s event is 404)',
  ':token': 'shipment-share.e2e-spec.ts (share tokens are derived, not looked up by id)',
};

describe('another tenant’s ids are answered exactly like ids that do not exist', () => {
  let api: TestApi;
  let db: DataSource;
  let mine: Tenant;
  let admin: PanelBrowser;
  const foreign: Record<string, string> = {};
  const missing: Record<string, string> = {};

  beforeAll(async () => {
    api = await startApi({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', SMTP_URL: '' });
    db = dataSourceOf(api.app);
    mine = await createTenant(api.app, undefined, 'Curious Co');
    admin = await signIn(api, (await insertPanelUser(db, mine.accountId, 'COMPANY_ADMIN')).email);

    const other = await shipmentWorld(api, 2, undefined, 'Neighbour Co');
    const shipment = await createShipment(api, other.tenant, shipmentBody(other.refs, [other.devices[0]]));
    const invitation = await api.http
      .post(`${API}/user-invitations/`)
      .set(other.tenant.auth)
      .set('Idempotency-Key', newKey())
      .send({ email: `invited-${randomUUID()}@example.com`, full_name: 'Invited', role: 'VIEWER' })
      .expect(201);
    const template = await createRecord(api, other.tenant, 'shipment-templates', { name: 'Route', origin_location_id: other.refs.origin, destination_location_id: other.refs.destination });
    const otherAccount = toAccountId(other.tenant.accountId);
    const endpoint = await new WebhookEndpointsService(db, { secretsKey: api.config.secretsKey, allowPrivateTargets: true }).create(otherAccount, {
      url: 'https://127.0.0.1:9/neighbour',
      events: ['alarm.created'],
    });
    const credential = await new CredentialsService(db).create({ name: 'Neighbour key', scopes: ['devices:read'], accountIds: [otherAccount], ownerAccountId: otherAccount });
    Object.assign(foreign, {
      ':preset_id': other.refs.preset,
      ':carrier_id': other.refs.seaCarrier,
      ':location_id': other.refs.origin,
      ':receiver_id': other.refs.receiver,
      ':template_id': template.id as string,
      ':shipment_id': String(shipment.id),
      ':device_id': other.devices[1],
      ':user_id': await insertUser(db, { accountId: other.tenant.accountId }),
      ':invitation_id': invitation.body.id as string,
      ':account_id': other.tenant.accountId,
      ':endpoint_id': endpoint.id,
      ':credential_id': credential.id,
      ':record_id': ((await db.query(`SELECT id FROM audit_events WHERE account_id = $1 LIMIT 1`, [other.tenant.accountId])) as Array<{ id: string }>)[0].id,
    });
    for (const param of Object.keys(foreign)) missing[param] = param === ':shipment_id' ? String(shipment.id + 100_000) : randomUUID();
  });
  afterAll(() => api.close());

  const routes = Object.entries(routeScopes as Record<string, { tenant: string }>)
    .filter(([route, { tenant }]) => route.includes('/:') && tenant !== 'public')
    .map(([route]) => route);

  it('has a foreign fixture, or a named test elsewhere, for every id a route takes', () => {
    const params = new Set(routes.flatMap((route) => route.match(/:[a-z_]+/g) ?? []));
    const known = new Set(Object.keys(foreign));
    expect([...params].filter((param) => !known.has(param) && !(param in NOT_COVERED_HERE))).toEqual([]);
  });

  it.each(routes)('%s', async (route) => {
    const [method, template] = route.split(' ');
    const params = template.match(/:[a-z_]+/g) ?? [];
    if (params.some((param) => !(param in foreign))) return; // see NOT_COVERED_HERE
    const answer = async (ids: Record<string, string>) => {
      const path = params.reduce((p, param) => p.replace(param, ids[param]), template);
      const panel = template.startsWith('/panel/');
      const agent = panel ? admin.agent : api.raw;
      let req = agent[method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](path);
      if (!panel) req = req.set(mine.auth).set('Idempotency-Key', newKey());
      const res = method === 'GET' || method === 'DELETE' ? await req : panel ? await req.type('form').send({ _csrf: admin.csrf }) : await req.send({});
      // The path first (a numeric id would also match digits elsewhere), then any uuid quoted in the text.
      const blank = (text: string) =>
        params.filter((param) => ids[param].length > 20).reduce((t, param) => t.split(ids[param]).join(param), text.split(path).join(template));
      return { status: res.status, location: blank(res.headers.location ?? ''), body: blank(res.text) };
    };
    const toForeign = await answer(foreign);
    const toMissing = await answer(missing);
    expect(toForeign).toEqual(toMissing);
    expect(toForeign.status).toBeGreaterThanOrEqual(400); // refused, never served
  });

  it.each([
    ['/panel/webhooks/', ':endpoint_id', { url: 'https://127.0.0.1:9/mine', events: 'alarm.created' }, 'endpoint_already_created'],
    ['/panel/credentials/', ':credential_id', { name: 'Mine', scopes: ['devices:read'] }, 'credential_already_created'],
  ])('POST %s with another tenant’s id as the form’s submission id is answered as a fresh form (it said "already created")', async (path, param, fields, notice) => {
    const post = (submission: string) => admin.agent.post(path).type('form').send({ _csrf: admin.csrf, submission, ...fields });
    const table = param === ':endpoint_id' ? 'webhook_endpoints' : 'api_credentials';
    const before = await db.query(`SELECT * FROM ${table} WHERE id = $1`, [foreign[param]]);
    const toForeign = await post(foreign[param]);
    const toFresh = await post(randomUUID());
    expect({ status: toForeign.status, location: toForeign.headers.location }).toEqual({ status: toFresh.status, location: toFresh.headers.location });
    expect(toForeign.status).toBe(200); // the one-time secret page of a new record of this company
    expect(toForeign.text).not.toContain(foreign[param]);
    expect(await db.query(`SELECT * FROM ${table} WHERE id = $1`, [foreign[param]])).toEqual(before);
    // A resubmission of this company's own form still finds its record.
    const again = await post(foreign[param]);
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe(`${path}?notice=${notice}`);
  });
});
