import type { EntityManager } from 'typeorm';
import { PointsReportBuilder } from './points-report-builder';
import { formatTime } from './report-format';
import { renderReportPdf } from './report-pdf';
import { displayedLimits, reportThresholds } from '../devices';
import { findOwnedDevice, forEachLifecyclePointBatch, lifecycleReportAlarms, storeReportFile } from './reports.repository';
import type { GeneratedReports } from './shipment-report';
import type { AccountId } from '@app/vocabulary';

export class DeviceReportError extends Error {}

const day = (value: Date): string => value.toISOString().slice(0, 10).replace(/-/g, '');

/**
 * A device report for its current owner: the PDF and CSV of the points of the device's current
 * lifecycle in [from, to) — clipped to the start of that ownership, so a previous owner's history
 * never lands in the new owner's report. Stored in the caller's transaction.
 */
export async function generateDeviceReports(
  manager: EntityManager,
  deviceId: string,
  range: { from: Date; to: Date },
  options: { ids?: Partial<GeneratedReports>; generatedAt?: Date } = {},
): Promise<GeneratedReports & { accountId: AccountId; period: { from: Date; to: Date } }> {
  const device = await findOwnedDevice(manager, deviceId);
  if (!device) throw new DeviceReportError(`no approved, non-deleted device ${deviceId} with an owner`);
  const from = new Date(Math.max(range.from.getTime(), device.started_at.getTime()));
  const to = range.to;
  if (from.getTime() >= to.getTime()) throw new DeviceReportError('the period is empty (to must be later than from and than the start of the current ownership)');
  const period = { from, to };
  const generatedAt = options.generatedAt ?? new Date();
  const [thresholds] = await reportThresholds(manager, device.account_id, [{ thresholds: device.thresholds, alertPresetId: device.alert_preset_id }], null);
  const builder = new PointsReportBuilder([{ deviceId, serial: device.serial_number, thresholds }], period);
  await forEachLifecyclePointBatch(manager, deviceId, device.lifecycle_id, period, (points) => builder.add(points));
  const alarms = await lifecycleReportAlarms(manager, device.account_id, device.lifecycle_id, period);
  const pdf = await renderReportPdf({
    title: 'Device report',
    heading: `${device.serial_number}${device.label ? ` - ${device.label}` : ''}`,
    facts: [
      ['Device', device.serial_number],
      ['Label', device.label ?? '-'],
      ['Owner', device.account_name],
      ['Owned since', formatTime(device.started_at)],
    ],
    period,
    devices: [{ serial: device.serial_number, label: device.label, from, to, summary: builder.summaryOf(deviceId) }],
    overall: builder.overall(),
    limits: displayedLimits([thresholds]),
    chart: builder.chart(),
    alarms: alarms.map((a) => ({ at: a.at, device: device.serial_number, type: a.type, severity: a.severity, message: a.message, resolvedAt: a.resolved_at })),
    generatedAt,
  });
  const subject = { type: 'device' as const, id: deviceId };
  const base = `device-${device.serial_number}-${day(from)}-${day(to)}`;
  return {
    accountId: device.account_id,
    period,
    pdf: await storeReportFile(manager, { id: options.ids?.pdf, accountId: device.account_id, subject, name: `${base}.pdf`, contentType: 'application/pdf', content: pdf, period, generatedAt }),
    csv: await storeReportFile(manager, { id: options.ids?.csv, accountId: device.account_id, subject, name: `${base}.csv`, contentType: 'text/csv', content: builder.csvFile(), period, generatedAt }),
  };
}
