import { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { createDataSource } from '@app/database';
import { defaultIngestCollaborators, TelemetryIngestService } from '@app/domain';
import { CliError } from '../../apps/cli/src/cli-context';
import { ingestNdjson } from '../../apps/cli/src/commands/telemetry.commands';
import { createAccount } from '../support/fixtures';
import { backdateLifecycle, registerDevice } from '../support/devices';
import { cliOutput } from '../support/cli';

describe('Ops CLI: devices and telemetry:ingest', () => {
  let db: DataSource;

  beforeAll(async () => {
    db = createDataSource(loadConfig().databaseUrl, 2);
    await db.initialize();
  });
  afterAll(() => db.destroy());

  it('devices:register creates approved or pending devices with a first lifecycle', async () => {
    const account = await createAccount(db, 'CLI Co');
    const approved = JSON.parse(await cliOutput('devices:register', '--account', account, '--count', '3', '--approved', '--json'));
    expect(approved.devices).toHaveLength(3);
    expect(approved.devices[0]).toEqual({ id: expect.any(String), serial_number: expect.stringMatching(/^CCT-[0-9A-F]{10}$/), account_id: account, lifecycle_id: expect.any(String), approved: true });
    const pending = JSON.parse(await cliOutput('devices:register', '--account', account, '--json'));
    expect(pending.devices).toEqual([expect.objectContaining({ approved: false })]);
    const rows = await db.query(
      `SELECT d.approval_status, l.account_id, l.ended_at FROM devices d JOIN device_lifecycles l ON l.device_id = d.id WHERE l.account_id = $1 ORDER BY d.approval_status`,
      [account],
    );
    expect(rows.map((r: { approval_status: string }) => r.approval_status)).toEqual(['approved', 'approved', 'approved', 'pending']);
    expect(rows.every((r: { ended_at: Date | null }) => r.ended_at === null)).toBe(true);

    expect(await cliOutput('devices:approve', pending.devices[0].id)).toBe(`Device ${pending.devices[0].id} approved.\n`);
    const [{ approval_status }] = await db.query('SELECT approval_status FROM devices WHERE id = $1', [pending.devices[0].id]);
    expect(approval_status).toBe('approved');
  });

  it('refuses bad arguments with a CliError', async () => {
    const account = await createAccount(db, 'CLI refusals');
    await expect(cliOutput('devices:register', '--account', account, '--count', '0')).rejects.toThrow(CliError);
    await expect(cliOutput('devices:register', '--account', account, '--count', 'many')).rejects.toThrow(CliError);
    await expect(cliOutput('devices:register', '--account', '0190a000-0000-7000-8000-000000000001')).rejects.toThrow('no account');
    await expect(cliOutput('devices:approve', 'nope')).rejects.toThrow(CliError);
    const device = await registerDevice(db, account);
    await expect(cliOutput('devices:transfer', '--device', device.id, '--account', account)).rejects.toThrow('already belongs');
  });

  it('devices:transfer ends the current lifecycle and starts the new owner’s', async () => {
    const from = await createAccount(db, 'Seller');
    const to = await createAccount(db, 'Buyer');
    const device = await registerDevice(db, from);
    const result = JSON.parse(await cliOutput('devices:transfer', '--device', device.id, '--account', to, '--json'));
    expect(result).toEqual({ device_id: device.id, account_id: to, lifecycle_id: expect.any(String), previous_lifecycle_id: device.lifecycle_id, previous_account_id: from });
    const lifecycles = await db.query('SELECT id, account_id, started_at, ended_at FROM device_lifecycles WHERE device_id = $1 ORDER BY started_at, ended_at NULLS LAST', [device.id]);
    expect(lifecycles.map((l: { account_id: string }) => l.account_id)).toEqual([from, to]);
    expect(lifecycles[0].ended_at).toEqual(lifecycles[1].started_at);
    expect(lifecycles[1].ended_at).toBeNull();
  });

  it('telemetry:ingest reads NDJSON and counts accepted, duplicate and rejected lines', async () => {
    const account = await createAccount(db, 'NDJSON Co');
    const device = await registerDevice(db, account);
    await backdateLifecycle(db, device.id, new Date('2025-01-01T00:00:00Z'));
    const line = (minute: number, temperature: number) =>
      JSON.stringify({ device_id: device.id, recorded_at: new Date(Date.UTC(2025, 0, 2, 0, minute)).toISOString(), temperature });
    const input = [line(0, 4), line(1, 4.5), '', '{not json', line(0, 4), JSON.stringify({ device_id: device.id }), line(2, 5)].join('\n');
    const service = new TelemetryIngestService(db, defaultIngestCollaborators());

    const first = await ingestNdjson(Readable.from([input]), service, 2);
    expect(first).toEqual({
      lines: 7,
      accepted: 3,
      duplicate: 1,
      rejected: 2,
      alarms: 0,
      errors: [
        { line: 4, reason: 'line is not valid JSON' },
        { line: 6, reason: 'recorded_at must be an ISO 8601 timestamp with a time zone' },
      ],
    });
    const again = await ingestNdjson(Readable.from([input]), service);
    expect(again).toMatchObject({ accepted: 0, duplicate: 4, rejected: 2 });
  });
});
