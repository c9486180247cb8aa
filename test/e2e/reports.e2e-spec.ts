import { createHash, randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import { PDFParse } from 'pdf-parse';
import type { Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { defaultIngestCollaborators, TelemetryIngestService } from '@app/domain';
import { storeReportFile } from '@app/domain/reports/reports.repository';
import { CliError } from '../../apps/cli/src/cli-context';
import { REPORT_CHUNK_BYTES, ReportFileReader } from '@app/domain';
import { ReportWorker } from '../../apps/api/src/reports/report-worker';
import { API, startApi, type TestApi } from '../support/api';
import { createTenant, type Tenant } from '../support/fixtures';
import { backdateLifecycle, point, setThresholds } from '../support/devices';
import { createShipment, shipmentBody, shipmentWorld, type ShipmentWorld } from '../support/shipments';
import { cliOutput } from '../support/cli';

const HOUR = 3_600_000;
const MIN = 60_000;

/** supertest: the body as raw bytes, whatever the content type. */
const binary = (res: Response, done: (error: Error | null, body: Buffer) => void): void => {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
};

describe('Reports: generated on completion, listed, downloaded as a stream', () => {
  let api: TestApi;
  let world: ShipmentWorld;
  let db: DataSource;
  let stranger: Tenant;
  let shipmentId: number;
  let A: string;
  let B: string;
  const T0 = new Date(Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR);
  const at = (minutes: number): Date => new Date(T0.getTime() + minutes * MIN);
  const download = (tenant: Tenant, id: string) => api.http.get(`${API}/reports/${id}/download/`).set(tenant.auth).buffer(true).parse(binary);

  beforeAll(async () => {
    api = await startApi();
    world = await shipmentWorld(api, 3, undefined, 'Reporter');
    db = world.db;
    stranger = await createTenant(api.app, undefined, 'Stranger');
    [A, B] = world.devices;
    for (const id of [A, B]) await backdateLifecycle(db, id, new Date(T0.getTime() - 24 * HOUR));
    await setThresholds(db, A, { temperature_min: 2, temperature_max: 8 });
    const shipment = await createShipment(api, world.tenant, shipmentBody(world.refs, [A, B], { reference: 'PO-REPORT-7', alert_preset_id: world.refs.preset }));
    shipmentId = shipment.id;
    await db.query(`UPDATE shipments SET started_at = $2 WHERE id = $1`, [shipmentId, T0]);
    await db.query(`UPDATE shipment_devices SET attached_at = $2 WHERE shipment_id = $1`, [shipmentId, T0]);
    // A: 4, 6, 10 (above 8 for 10 min), 3.  B (limits from the shipment's preset, 2–8): 12 (above for 15 min), 5.
    const result = await new TelemetryIngestService(db, defaultIngestCollaborators()).ingest([
      point(A, at(0), { temperature: 4 }),
      point(A, at(10), { temperature: 6 }),
      point(A, at(20), { temperature: 10 }),
      point(A, at(30), { temperature: 3 }),
      point(B, at(0), { temperature: 12 }),
      point(B, at(15), { temperature: 5 }),
    ]);
    expect(result.alarms).toEqual([expect.objectContaining({ type: 'TEMPERATURE', shipment_id: shipmentId })]);
    await api.http.post(`${API}/shipments/${shipmentId}/complete/`).set(world.tenant.auth).expect(200);
    await api.app.get(ReportWorker).idle();
  });
  afterAll(() => api.close());

  async function reportsOfShipment(): Promise<Array<Record<string, unknown>>> {
    return (await api.http.get(`${API}/reports/?shipment_id=${shipmentId}`).set(world.tenant.auth).expect(200)).body.data;
  }

  it('generates a PDF and a CSV right after completion, with their metadata', async () => {
    const reports = await reportsOfShipment();
    const completed = (await api.http.get(`${API}/shipments/${shipmentId}/`).set(world.tenant.auth).expect(200)).body.completed_at;
    expect(reports.map((r) => r.name).sort()).toEqual([`shipment-${shipmentId}-points.csv`, `shipment-${shipmentId}-report.pdf`]);
    for (const report of reports) {
      expect(report).toEqual({
        id: expect.any(String),
        name: expect.any(String),
        content_type: report.name === `shipment-${shipmentId}-report.pdf` ? 'application/pdf' : 'text/csv',
        size_bytes: expect.any(Number),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        period_from: T0.toISOString(),
        period_to: completed,
        subject: { type: 'shipment', id: shipmentId },
        generated_at: expect.any(String),
      });
      const detail = await api.http.get(`${API}/reports/${report.id}/`).set(world.tenant.auth).expect(200);
      expect(detail.body).toEqual(report);
    }
    expect((await db.query(`SELECT count(*)::int AS n FROM shipment_report_jobs WHERE shipment_id = $1`, [shipmentId]))[0].n).toBe(0);
  });

  it('the PDF parses, has two pages and the right figures (MKT hand-computed, time beyond the limits, the alarm)', async () => {
    const pdf = (await reportsOfShipment()).find((r) => r.content_type === 'application/pdf')!;
    const res = await download(world.tenant, pdf.id as string).expect(200);
    expect(res.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(pdf.size_bytes),
      'content-disposition': `attachment; filename="shipment-${shipmentId}-report.pdf"; filename*=UTF-8''shipment-${shipmentId}-report.pdf`,
      etag: `"${pdf.sha256 as string}"`,
    });
    const body = res.body as Buffer;
    expect(body.length).toBe(pdf.size_bytes);
    expect(createHash('sha256').update(body).digest('hex')).toBe(pdf.sha256);
    const parser = new PDFParse({ data: body });
    try {
      const parsed = await parser.getText();
      expect(parsed.total).toBe(2);
      const text = parsed.text.replace(/\s+/g, ' ');
      expect(text).toContain('Shipment report');
      expect(text).toContain('PO-REPORT-7 - Test shipment');
      expect(text).toContain('Route Origin -> Destination');
      expect(text).toContain('Limits - temperature: min 2.00 °C, max 8.00 °C');
      // overall: 6 points, min 3, max 12, avg 6.67, MKT 7.33; beyond max 10 + 15 = 25 min
      expect(text).toContain('All devices 6 3.00 12.00 6.67 7.33 0 min 25 min');
      // A: MKT of 4, 6, 10, 3 = 10000 / -ln(mean(exp(-10000 / T))) - 273.15 = 6.2088 °C
      expect(text).toMatch(/CCT-[0-9A-F]{10} 4 3\.00 10\.00 5\.75 6\.21 0 min 10 min/);
      expect(text).toMatch(/CCT-[0-9A-F]{10} 2 5\.00 12\.00 8\.50 9\.21 0 min 15 min/);
      expect(text).toContain('Overall MKT 7.33 °C');
      expect(text).toContain('Alarms (1)');
      expect(text).toContain(`${at(20).toISOString().slice(0, 16).replace('T', ' ')} UTC CCT-`);
      expect(text).toContain('TEMPERATURE/WARNING Temperature 10 °C above the maximum of 8 °C.');
      expect(text).toContain('Page 2 of 2');
    } finally {
      await parser.destroy();
    }
  });

  it('the CSV holds every tracked point', async () => {
    const csv = (await reportsOfShipment()).find((r) => r.content_type === 'text/csv')!;
    const res = await download(world.tenant, csv.id as string).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = (res.body as Buffer).toString('utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('device_id,serial_number,recorded_at,temperature,humidity,light,shock,battery,latitude,longitude');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(new RegExp(`^(${A}|${B}),CCT-[0-9A-F]{10},${T0.toISOString().replace(/\./g, '\\.')},(4|12),,,,,,$`));
  });

  it('streams a large file in chunks, never reading it whole, with the right length and checksum', async () => {
    const content = randomBytes(6 * 1024 * 1024 + 12345);
    const id = await db.transaction((manager) =>
      storeReportFile(manager, {
        accountId: world.tenant.accountId,
        subject: { type: 'device', id: A },
        name: 'device-large.pdf',
        contentType: 'application/pdf',
        content,
        period: { from: T0, to: at(60) },
        generatedAt: new Date(),
      }),
    );
    const reader = api.app.get(ReportFileReader);
    const reads = jest.spyOn(reader, 'readChunk');
    try {
      const res = await download(world.tenant, id).expect(200);
      expect(res.headers['content-length']).toBe(String(content.length));
      expect(createHash('sha256').update(res.body as Buffer).digest('hex')).toBe(createHash('sha256').update(content).digest('hex'));
      expect(reads).toHaveBeenCalledTimes(Math.ceil(content.length / REPORT_CHUNK_BYTES));
      for (const call of reads.mock.calls) expect(call[3]).toBeLessThanOrEqual(REPORT_CHUNK_BYTES);
      for (const result of reads.mock.results) expect(((await result.value) as Buffer).length).toBeLessThanOrEqual(REPORT_CHUNK_BYTES);
    } finally {
      reads.mockRestore();
    }
    const meta = await api.http.get(`${API}/reports/${id}/`).set(world.tenant.auth).expect(200);
    expect(meta.body).toMatchObject({ size_bytes: content.length, subject: { type: 'device', id: A } });
  });

  it('lists newest first with filters, and hides reports from other tenants (404) and tokens without reports:read (403)', async () => {
    const all = (await api.http.get(`${API}/reports/`).set(world.tenant.auth).expect(200)).body.data as Array<{ id: string; subject: { type: string } }>;
    expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort().reverse());
    const devices = (await api.http.get(`${API}/reports/?subject_type=device`).set(world.tenant.auth).expect(200)).body.data;
    expect(devices.every((r: { subject: { type: string } }) => r.subject.type === 'device')).toBe(true);
    expect((await api.http.get(`${API}/reports/`).set(stranger.auth).expect(200)).body.data).toEqual([]);
    for (const report of all) {
      await api.http.get(`${API}/reports/${report.id}/`).set(stranger.auth).expect(404);
      await api.http.get(`${API}/reports/${report.id}/download/`).set(stranger.auth).expect(404);
    }
    await api.http.get(`${API}/reports/not-a-uuid/`).set(world.tenant.auth).expect(404);
    const noScope = await createTenant(api.app, ['shipments:read']);
    await api.http.get(`${API}/reports/`).set(noScope.auth).expect(403);
    await api.http.get(`${API}/reports/${all[0].id}/download/`).set(noScope.auth).expect(403);
    for (const bad of ['subject_type=truck', 'shipment_id=0', 'device_id=x']) await api.http.get(`${API}/reports/?${bad}`).set(world.tenant.auth).expect(400);
  });

  it('reports:generate makes a device report for the current owner, clipped to the ownership', async () => {
    const out = JSON.parse(await cliOutput('reports:generate', '--device', A, '--from', new Date(T0.getTime() - 48 * HOUR).toISOString(), '--to', at(60).toISOString(), '--json'));
    expect(out.account_id).toBe(world.tenant.accountId);
    expect(out.reports.map((r: { content_type: string }) => r.content_type)).toEqual(['application/pdf', 'text/csv']);
    expect(out.reports[0]).toMatchObject({ subject: { type: 'device', id: A }, period_from: new Date(T0.getTime() - 24 * HOUR).toISOString(), period_to: at(60).toISOString() });
    const csv = await download(world.tenant, out.reports[1].id).expect(200);
    expect((csv.body as Buffer).toString().trimEnd().split('\r\n')).toHaveLength(5);
    await expect(cliOutput('reports:generate', '--device', 'nope', '--from', T0.toISOString(), '--to', at(1).toISOString())).rejects.toThrow(CliError);
    await expect(cliOutput('reports:generate', '--device', A, '--from', at(1).toISOString(), '--to', T0.toISOString())).rejects.toThrow('--to must be later');
    await expect(cliOutput('reports:generate', '--device', A, '--from', '2025-01-01', '--to', at(1).toISOString())).rejects.toThrow('--from must be');
    await expect(cliOutput('reports:generate', '--device', '0190a000-0000-7000-8000-000000000001', '--from', T0.toISOString(), '--to', at(1).toISOString())).rejects.toThrow('no approved');
  });
});
