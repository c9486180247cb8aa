import { hostileRequests, runFuzz } from '../../fuzz/hostile-requests';
import { API, startListeningApi, type TestApi } from '../support/api';
import { createRecord, CIRCLE } from '../support/catalogue';
import { createTenant, type Tenant } from '../support/fixtures';
import { registerDevice } from '../support/devices';
import { dataSourceOf } from '../support/fixtures';

const REQUESTS = 2400;

/**
 * Schema-driven hostile requests over every operation of the served document (see
 * fuzz/hostile-requests.ts): no answer may be a 5xx and no connection may drop. The long run is
 * `npm run fuzz -- --requests 20000`.
 */
describe('fuzzing every operation of the served OpenAPI document', () => {
  let api: TestApi & { base: string };
  let tenant: Tenant;
  const ids: Record<string, string[]> = {};

  beforeAll(async () => {
    api = await startListeningApi({ RATE_LIMIT_PER_MINUTE: '10000000', TOKEN_RATE_LIMIT_PER_MINUTE: '10000000', INGEST_CONSUMER: 'off' });
    tenant = await createTenant(api.app, undefined, 'Fuzzed Co');
    const location = await createRecord(api, tenant, 'locations', { name: 'Fuzz depot', kind: 'warehouse', geofence: CIRCLE });
    const carrier = await createRecord(api, tenant, 'carriers', { name: 'Fuzz lines', mode: 'road' });
    const device = await registerDevice(dataSourceOf(api.app), tenant.accountId);
    Object.assign(ids, {
      location_id: [String(location.id)],
      origin_location_id: [String(location.id)],
      destination_location_id: [String(location.id)],
      carrier_id: [String(carrier.id)],
      device_id: [device.id],
      account_id: [tenant.accountId],
      shipment_id: ['1', '2'],
    });
  }, 60_000);
  afterAll(() => api.close());

  it(`answers ${REQUESTS} hostile requests without a 5xx or a dropped connection`, async () => {
    const document = (await (await fetch(`${api.base}${API}/schema/`)).json()) as Parameters<typeof hostileRequests>[0];
    expect(Object.keys(document.paths).length).toBeGreaterThan(30);
    const validBodies = {
      [`POST ${API}/carriers/`]: { name: 'Fuzz carrier', mode: 'road' },
      [`PUT ${API}/carriers/{carrier_id}/`]: { name: 'Fuzz carrier', mode: 'sea' },
      [`POST ${API}/locations/`]: { name: 'Fuzz site', kind: 'warehouse', geofence: CIRCLE },
      [`PUT ${API}/locations/{location_id}/`]: { name: 'Fuzz site', kind: 'port', geofence: CIRCLE },
      [`POST ${API}/receivers/`]: { name: 'Fuzz receiver' },
      [`POST ${API}/user-invitations/`]: { email: 'fuzz@example.com', full_name: 'Fuzz', role: 'VIEWER' },
    };
    const requests = hostileRequests(document, { authorization: tenant.auth.Authorization, accountId: tenant.accountId, ids, validBodies }, REQUESTS, 20261125);
    const { sent, failures, statuses } = await runFuzz(api.base, requests, 8);
    expect(sent).toBe(REQUESTS);
    expect(failures).toEqual([]);
    // The variants reach deep code, not only the guards: some are accepted, many refused as invalid.
    expect(Object.keys(statuses).map(Number).filter((status) => status < 300).length).toBeGreaterThan(0);
    expect(statuses[400]).toBeGreaterThan(REQUESTS / 10);
  }, 180_000);
});
