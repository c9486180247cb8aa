import type { DataSource } from 'typeorm';
import { newId } from '@app/database';
import { raiseAlarm, type AlarmSeverity, type AlarmType } from '@app/domain';
import { API, startApi, type TestApi } from '../support/api';
import { createTenant, dataSourceOf, type Tenant } from '../support/fixtures';
import { registerDevice } from '../support/devices';

const ALARM_FIELDS = ['created_at', 'device_id', 'id', 'message', 'resolved', 'resolved_at', 'resolved_by', 'severity', 'shipment_id', 'source', 'type'];

describe('Alarms', () => {
  let api: TestApi;
  let db: DataSource;
  let tenant: Tenant;
  let stranger: Tenant;

  beforeAll(async () => {
    api = await startApi();
    db = dataSourceOf(api.app);
    tenant = await createTenant(api.app, ['alarms:read', 'alarms:write', 'devices:read']);
    stranger = await createTenant(api.app);
  });
  afterAll(() => api.close());

  async function alarm(owner: Tenant, options: { deviceId?: string; type?: AlarmType; severity?: AlarmSeverity; shipmentId?: number | null } = {}) {
    const deviceId = options.deviceId ?? (await registerDevice(db, owner.accountId)).id;
    const [{ lifecycle }] = await db.query('SELECT id AS lifecycle FROM device_lifecycles WHERE device_id = $1 AND ended_at IS NULL', [deviceId]);
    const record = await db.transaction((manager) =>
      raiseAlarm(manager, {
        accountId: owner.accountId,
        deviceId,
        lifecycleId: lifecycle,
        shipmentId: options.shipmentId ?? null,
        type: options.type ?? 'TEMPERATURE',
        severity: options.severity ?? 'WARNING',
        source: 'THRESHOLD',
        message: 'Temperature 9 °C above the maximum of 8 °C.',
        triggeredAt: new Date(),
      }),
    );
    if (!record) throw new Error('alarm not raised');
    return record;
  }

  const events = async (alarmId: string, type: string): Promise<Array<{ envelope: { data: unknown } }>> =>
    db.query('SELECT envelope FROM outbox_events WHERE aggregate_id = $1 AND event_type = $2', [alarmId, type]);

  it('shows an alarm exactly as the record of spec §2.4, plus resolved_by', async () => {
    const raised = await alarm(tenant, { shipmentId: 17 });
    const res = await api.http.get(`${API}/alarms/${raised.id}/`).set(tenant.auth).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(ALARM_FIELDS);
    expect(res.body).toEqual({ ...raised, resolved_by: null });
    expect(res.body.shipment_id).toBe(17);
  });

  it('answers 404 for another tenant’s alarm, an unknown one and a malformed id, on read and write', async () => {
    const foreign = await alarm(stranger);
    for (const id of [foreign.id, newId(), 'not-an-id']) {
      expect((await api.http.get(`${API}/alarms/${id}/`).set(tenant.auth).expect(404)).body.code).toBe('not_found');
      await api.http.patch(`${API}/alarms/${id}/`).set(tenant.auth).send({ resolved: true }).expect(404);
    }
    const [row] = await db.query('SELECT resolved_at FROM alarms WHERE id = $1', [foreign.id]);
    expect(row.resolved_at).toBeNull();
  });

  it('lists newest first with the resolved, severity, device_id and shipment_id filters', async () => {
    const owner = await createTenant(api.app, ['alarms:read']);
    const device = await registerDevice(db, owner.accountId);
    const a = await alarm(owner, { deviceId: device.id, type: 'TEMPERATURE', severity: 'WARNING', shipmentId: 5 });
    const b = await alarm(owner, { deviceId: device.id, type: 'SHOCK', severity: 'CRITICAL' });
    const c = await alarm(owner, { type: 'BATTERY', severity: 'INFO', shipmentId: 5 });
    await db.query('UPDATE alarms SET resolved_at = now() WHERE id = $1', [b.id]);
    await alarm(stranger);
    const ids = async (query: Record<string, string> = {}) =>
      (await api.http.get(`${API}/alarms/`).query(query).set(owner.auth).expect(200)).body.data.map((x: { id: string }) => x.id);

    expect(await ids()).toEqual([c.id, b.id, a.id]);
    expect(await ids({ resolved: 'true' })).toEqual([b.id]);
    expect(await ids({ resolved: 'false' })).toEqual([c.id, a.id]);
    expect(await ids({ severity: 'CRITICAL' })).toEqual([b.id]);
    expect(await ids({ device_id: device.id })).toEqual([b.id, a.id]);
    expect(await ids({ shipment_id: '5' })).toEqual([c.id, a.id]);
    expect(await ids({ shipment_id: '5', resolved: 'false', severity: 'INFO' })).toEqual([c.id]);

    const first = await api.http.get(`${API}/alarms/`).query({ limit: '2' }).set(owner.auth).expect(200);
    const next = new URL(first.body.links.next);
    const second = await api.http.get(next.pathname + next.search).set(owner.auth).expect(200);
    expect([...first.body.data, ...second.body.data].map((x: { id: string }) => x.id)).toEqual([c.id, b.id, a.id]);

    for (const query of [{ resolved: 'yes' }, { severity: 'LOW' }, { device_id: 'abc' }, { shipment_id: 'x' }, { shipment_id: '1.5' }, { shipment_id: '0' }, { status: 'open' }]) {
      const res = await api.http.get(`${API}/alarms/`).query(query).set(owner.auth).expect(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('lists a device’s alarms of its current lifecycle only', async () => {
    const device = await registerDevice(db, tenant.accountId);
    const current = await alarm(tenant, { deviceId: device.id, type: 'HUMIDITY' });
    // an alarm of an earlier ownership by this same tenant stays out of the device view
    const earlier = newId();
    await db.query(
      `INSERT INTO device_lifecycles (id, device_id, account_id, started_at, ended_at) VALUES ($1, $2, $3, now() - interval '20 days', now() - interval '10 days')`,
      [earlier, device.id, tenant.accountId],
    );
    await db.query(
      `INSERT INTO alarms (id, account_id, device_id, lifecycle_id, type, severity, source, message) VALUES ($1, $2, $3, $4, 'LIGHT', 'WARNING', 'THRESHOLD', 'old')`,
      [newId(), tenant.accountId, device.id, earlier],
    );
    const res = await api.http.get(`${API}/devices/${device.id}/alarms/`).set(tenant.auth).expect(200);
    expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([current.id]);
    expect((await api.http.get(`${API}/devices/${device.id}/alarms/?resolved=true`).set(tenant.auth).expect(200)).body.data).toEqual([]);
    await api.http.get(`${API}/devices/${device.id}/alarms/?device_id=${device.id}`).set(tenant.auth).expect(400);
  });

  describe('PATCH /alarms/{id}/', () => {
    it('resolves once, publishing alarm.resolved in the same transaction; a repeat is a no-op', async () => {
      const raised = await alarm(tenant);
      const res = await api.http.patch(`${API}/alarms/${raised.id}/`).set(tenant.auth).send({ resolved: true }).expect(200);
      expect(res.body).toMatchObject({ id: raised.id, resolved: true, resolved_by: null, resolved_at: expect.any(String) });
      const [row] = await db.query('SELECT xmin::text AS tx, resolved_by FROM alarms WHERE id = $1', [raised.id]);
      expect(row.resolved_by).toBeNull();
      const resolvedEvents = await db.query(`SELECT xmin::text AS tx, envelope FROM outbox_events WHERE aggregate_id = $1 AND event_type = 'alarm.resolved'`, [raised.id]);
      expect(resolvedEvents).toHaveLength(1);
      expect(resolvedEvents[0].tx).toBe(row.tx);
      const { resolved_by: _resolvedBy, ...record } = res.body;
      expect(resolvedEvents[0].envelope.data).toEqual(record);

      const again = await api.http.patch(`${API}/alarms/${raised.id}/`).set(tenant.auth).send({ resolved: true }).expect(200);
      expect(again.body).toEqual(res.body);
      expect(await events(raised.id, 'alarm.resolved')).toHaveLength(1);
      expect(await events(raised.id, 'alarm.created')).toHaveLength(1);
    });

    it('refuses to reopen a resolved alarm with 409 alarm_already_resolved; false on an open alarm changes nothing', async () => {
      const raised = await alarm(tenant);
      const unchanged = await api.http.patch(`${API}/alarms/${raised.id}/`).set(tenant.auth).send({ resolved: false }).expect(200);
      expect(unchanged.body).toMatchObject({ resolved: false, resolved_at: null });
      await api.http.patch(`${API}/alarms/${raised.id}/`).set(tenant.auth).send({ resolved: true }).expect(200);
      const conflict = await api.http.patch(`${API}/alarms/${raised.id}/`).set(tenant.auth).send({ resolved: false }).expect(409);
      expect(conflict.body).toMatchObject({ status: 409, code: 'alarm_already_resolved' });
      expect(await events(raised.id, 'alarm.resolved')).toHaveLength(1);
    });

    it.each([
      [{}],
      [{ resolved: 'true' }],
      [{ resolved: null }],
      [{ resolved: true, message: 'edited' }],
      [{ resolved: true, resolved_by: '0190a000-0000-7000-8000-000000000001' }],
      [{ severity: 'INFO' }],
    ])('accepts only a boolean `resolved`: %j is a 400', async (body) => {
      const raised = await alarm(tenant);
      const res = await api.http.patch(`${API}/alarms/${raised.id}/`).set(tenant.auth).send(body).expect(400);
      expect(res.body.code).toBe('validation_failed');
      const [row] = await db.query('SELECT resolved_at, message, severity FROM alarms WHERE id = $1', [raised.id]);
      expect(row).toEqual({ resolved_at: null, message: raised.message, severity: raised.severity });
    });

    it('needs alarms:write', async () => {
      const reader = await createTenant(api.app, ['alarms:read']);
      const raised = await alarm(reader);
      await api.http.patch(`${API}/alarms/${raised.id}/`).set(reader.auth).send({ resolved: true }).expect(403);
    });
  });
});
