import { API, startApi, type TestApi } from '../support/api';
import { createRecord, newKey, type Json } from '../support/catalogue';
import { createTenant, type Tenant } from '../support/fixtures';

describe('catalogue family rules', () => {
  let api: TestApi;
  let tenant: Tenant;
  const post = (collection: string, body: Json) =>
    api.http.post(`${API}/${collection}/`).set(tenant.auth).set('Idempotency-Key', newKey()).send(body);
  const fieldErrors = (body: { errors?: Array<{ field: string; code: string }> }) => (body.errors ?? []).map((e) => [e.field, e.code]);

  beforeAll(async () => {
    api = await startApi();
    tenant = await createTenant(api.app);
  });
  afterAll(() => api.close());

  describe('/carriers/', () => {
    it('stores every identifier of a multimodal carrier', async () => {
      const identifiers = { scac: 'MAEU', iata_code: '5X', mmsi: '219000123', imo: '9176187' };
      const carrier = await createRecord(api, tenant, 'carriers', { name: 'Multi', mode: 'multimodal', contact_phone: '+4533633363', ...identifiers });
      expect(carrier).toMatchObject(identifiers);
    });

    it.each([
      ['scac', 'ma', 'matches'],
      ['scac', 'MAERSK', 'matches'],
      ['iata_code', 'TKX', 'matches'],
      ['mmsi', '21900012', 'matches'],
      ['mmsi', 219000123, 'isString'],
      ['imo', '9176188', 'isImoNumber'],
      ['imo', 'IMO9176187', 'isImoNumber'],
      ['contact_email', 'not-an-email', 'isEmail'],
      ['contact_phone', '0532 123 45 67', 'matches'],
      ['mode', 'pipeline', 'isIn'],
    ])('refuses %s %p (%s)', async (field, value, code) => {
      const res = await post('carriers', { name: 'Bad', mode: 'multimodal', [field]: value }).expect(400);
      expect(fieldErrors(res.body)).toContainEqual([field, code]);
    });

    it.each([
      ['air', { mmsi: '219000123' }, 'mmsi'],
      ['air', { imo: '9176187' }, 'imo'],
      ['road', { iata_code: 'TK' }, 'iata_code'],
      ['sea', { iata_code: 'TK' }, 'iata_code'],
      ['air', { scac: 'ABCD' }, 'scac'],
    ])('refuses on a %s carrier the identifier %j', async (mode, identifier, field) => {
      const res = await post('carriers', { name: 'Mismatch', mode, ...identifier }).expect(400);
      expect(fieldErrors(res.body)).toEqual([[field, 'not_applicable']]);
    });

    it('checks identifiers against the mode after a PATCH of the mode', async () => {
      const carrier = await createRecord(api, tenant, 'carriers', { name: 'Ship', mode: 'sea', mmsi: '219000123' });
      const res = await api.http.patch(`${API}/carriers/${carrier.id}/`).set(tenant.auth).send({ mode: 'air' }).expect(400);
      expect(fieldErrors(res.body)).toEqual([['mmsi', 'not_applicable']]);
      const fixed = await api.http.patch(`${API}/carriers/${carrier.id}/`).set(tenant.auth).send({ mode: 'air', mmsi: null, iata_code: 'TK' }).expect(200);
      expect(fixed.body).toMatchObject({ mode: 'air', mmsi: null, iata_code: 'TK' });
    });
  });

  describe('/receivers/', () => {
    it('stores delivery parties with nulls for the contact fields not sent', async () => {
      const receiver = await createRecord(api, tenant, 'receivers', {
        name: 'Hospital',
        notification_emails: ['a@hospital.example', 'b@hospital.example'],
        delivery_parties: [{ name: 'Dr. Kaya', role: 'consignee', email: 'kaya@hospital.example' }, { name: 'Broker', role: 'customs_broker', phone: '+903125520000' }],
      });
      expect(receiver.delivery_parties).toEqual([
        { name: 'Dr. Kaya', role: 'consignee', email: 'kaya@hospital.example', phone: null },
        { name: 'Broker', role: 'customs_broker', email: null, phone: '+903125520000' },
      ]);
      const patched = await api.http.patch(`${API}/receivers/${receiver.id}/`).set(tenant.auth).send({ delivery_parties: [] }).expect(200);
      expect(patched.body).toMatchObject({ delivery_parties: [], notification_emails: ['a@hospital.example', 'b@hospital.example'] });
    });

    it.each([
      ['notification_emails', ['ok@x.example', 'nope'], 'notification_emails', 'isEmail'],
      ['notification_emails', ['a@x.example', 'a@x.example'], 'notification_emails', 'arrayUnique'],
      ['notification_emails', Array.from({ length: 21 }, (_, i) => `u${i}@x.example`), 'notification_emails', 'arrayMaxSize'],
      ['delivery_parties', [{ name: 'X', role: 'boss' }], 'delivery_parties.0.role', 'isIn'],
      ['delivery_parties', [{ role: 'consignee' }], 'delivery_parties.0.name', 'isString'],
      ['delivery_parties', [{ name: 'X', role: 'consignee', fax: '1' }], 'delivery_parties.0.fax', 'unknown_field'],
      ['delivery_parties', [{ name: 'X', role: 'consignee', email: 'bad' }], 'delivery_parties.0.email', 'isEmail'],
      ['delivery_parties', null, 'delivery_parties', 'isArray'],
    ])('refuses %s %j', async (field, value, errorField, code) => {
      const res = await post('receivers', { name: 'Bad', [field]: value }).expect(400);
      expect(fieldErrors(res.body)).toContainEqual([errorField, code]);
    });
  });

  describe('/alert-presets/', () => {
    it('keeps every threshold optional and stores numbers as sent', async () => {
      const preset = await createRecord(api, tenant, 'alert-presets', { name: 'Empty' });
      expect(preset).toMatchObject({ temperature_min: null, temperature_max: null, humidity_min: null, battery_min: null, delay_minutes: 0 });
      const full = { name: 'Full', temperature_min: -20.5, temperature_max: -15, humidity_min: 10, humidity_max: 90, light_max: 0, shock_max: 2.5, battery_min: 10, delay_minutes: 1440 };
      expect(await createRecord(api, tenant, 'alert-presets', full)).toMatchObject(full);
    });

    it.each([
      [{ temperature_min: 8, temperature_max: 2 }, 'temperature_min', 'min_not_below_max'],
      [{ temperature_min: 5, temperature_max: 5 }, 'temperature_min', 'min_not_below_max'],
      [{ humidity_min: 80, humidity_max: 20 }, 'humidity_min', 'min_not_below_max'],
      [{ temperature_max: 101 }, 'temperature_max', 'max'],
      [{ humidity_min: -1 }, 'humidity_min', 'min'],
      [{ battery_min: 101 }, 'battery_min', 'max'],
      [{ shock_max: -1 }, 'shock_max', 'min'],
      [{ delay_minutes: 1441 }, 'delay_minutes', 'max'],
      [{ delay_minutes: 1.5 }, 'delay_minutes', 'isInt'],
      [{ delay_minutes: null }, 'delay_minutes', 'isInt'],
      [{ light_max: '50' }, 'light_max', 'isNumber'],
    ])('refuses %j', async (thresholds, field, code) => {
      const res = await post('alert-presets', { name: 'Bad', ...thresholds }).expect(400);
      expect(fieldErrors(res.body)).toContainEqual([field, code]);
    });

    it('compares a patched bound with the stored one', async () => {
      const preset = await createRecord(api, tenant, 'alert-presets', { name: 'Vaccines', temperature_min: 2, temperature_max: 8 });
      const res = await api.http.patch(`${API}/alert-presets/${preset.id}/`).set(tenant.auth).send({ temperature_max: 1 }).expect(400);
      expect(fieldErrors(res.body)).toEqual([['temperature_min', 'min_not_below_max']]);
      const cleared = await api.http.patch(`${API}/alert-presets/${preset.id}/`).set(tenant.auth).send({ temperature_min: null, temperature_max: 1 }).expect(200);
      expect(cleared.body).toMatchObject({ temperature_min: null, temperature_max: 1 });
    });
  });
});
