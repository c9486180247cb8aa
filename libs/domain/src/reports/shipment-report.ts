import type { EntityManager } from 'typeorm';
import { loadShipmentRow, type ShipmentRow, toStoredLegs } from '../shipments';
import { PointsReportBuilder } from './points-report-builder';
import { formatTime } from './report-format';
import { renderReportPdf, type ReportAlarmLine } from './report-pdf';
import { displayedLimits, reportThresholds } from '../devices';
import { forEachShipmentPointBatch, shipmentReportAlarms, shipmentReportAttachments, storeReportFile, type ReportAttachment } from './reports.repository';
import type { AccountId } from '@app/vocabulary';

export interface GeneratedReports {
  pdf: string;
  csv: string;
}

const orDash = (value: string | null): string => value ?? '-';
const when = (value: Date | null): string => (value ? formatTime(value) : '-');

function facts(row: ShipmentRow): Array<[string, string]> {
  const legs = toStoredLegs(row.transport_legs).map((leg, i) => {
    const vessel = [leg.vessel_mmsi && `MMSI ${leg.vessel_mmsi}`, leg.vessel_imo && `IMO ${leg.vessel_imo}`].filter(Boolean).join(', ');
    return `${i + 1}. ${leg.mode}${vessel ? ` (${vessel})` : ''}`;
  });
  return [
    ['Shipment', `#${row.id}`],
    ['Reference', row.reference],
    ['Status', row.status],
    ['Route', `${row.origin_name ?? row.origin_location_id} -> ${row.destination_name ?? row.destination_location_id}`],
    ['Transport legs', legs.length > 0 ? legs.join('; ') : '-'],
    ['Planned departure', when(row.planned_departure_at)],
    ['Planned arrival', when(row.planned_arrival_at)],
    ['Started', formatTime(row.started_at)],
    ['Arrived', when(row.arrived_at)],
    ['Completed', when(row.completed_at)],
    ['Receiver', orDash(row.receiver_name)],
    ['Carrier', orDash(row.carrier_name)],
    ['Alert preset', orDash(row.alert_preset_name)],
  ];
}

/**
 * The report of a completed shipment — a PDF and a CSV of its points — stored in the caller's
 * transaction. Its period is the frozen tracking window [started_at, completed_at).
 */
export async function generateShipmentReports(
  manager: EntityManager,
  accountId: AccountId,
  shipmentId: number,
  options: { ids?: Partial<GeneratedReports>; generatedAt?: Date } = {},
): Promise<GeneratedReports> {
  const row = await loadShipmentRow(manager, accountId, shipmentId);
  if (!row || row.status !== 'completed' || !row.completed_at) throw new Error(`shipment ${shipmentId} is not a completed shipment of account ${accountId}`);
  const period = { from: row.started_at, to: row.completed_at };
  const generatedAt = options.generatedAt ?? new Date();
  const attachments = await shipmentReportAttachments(manager, accountId, shipmentId);
  // One line per device, however often it was attached.
  const devices = new Map<string, ReportAttachment & { first: Date; last: Date | null }>();
  for (const a of attachments) {
    const seen = devices.get(a.device_id);
    if (!seen) devices.set(a.device_id, { ...a, first: a.attached_at, last: a.detached_at });
    else seen.last = a.detached_at && seen.last ? new Date(Math.max(a.detached_at.getTime(), seen.last.getTime())) : null;
  }
  const list = [...devices.values()];
  const thresholds = await reportThresholds(manager, accountId, list.map((d) => ({ thresholds: d.thresholds, alertPresetId: d.alert_preset_id })), row.alert_preset_id);
  const builder = new PointsReportBuilder(list.map((d, i) => ({ deviceId: d.device_id, serial: d.serial_number, thresholds: thresholds[i] })), period);
  await forEachShipmentPointBatch(manager, accountId, shipmentId, row.completed_at, (points) => builder.add(points));

  const alarms = await shipmentReportAlarms(manager, accountId, shipmentId);
  const alarmLines: ReportAlarmLine[] = alarms.map((a) => ({ at: a.at, device: a.serial_number, type: a.type, severity: a.severity, message: a.message, resolvedAt: a.resolved_at }));

  const pdf = await renderReportPdf({
    title: 'Shipment report',
    heading: `${row.reference} - ${row.name}`,
    facts: facts(row),
    period,
    devices: list.map((d) => ({ serial: d.serial_number, label: d.label, from: d.first, to: d.last, summary: builder.summaryOf(d.device_id) })),
    overall: builder.overall(),
    limits: displayedLimits(thresholds),
    chart: builder.chart(),
    alarms: alarmLines,
    generatedAt,
  });
  const subject = { type: 'shipment' as const, id: shipmentId };
  return {
    pdf: await storeReportFile(manager, { id: options.ids?.pdf, accountId, subject, name: `shipment-${shipmentId}-report.pdf`, contentType: 'application/pdf', content: pdf, period, generatedAt }),
    csv: await storeReportFile(manager, { id: options.ids?.csv, accountId, subject, name: `shipment-${shipmentId}-points.csv`, contentType: 'text/csv', content: builder.csvFile(), period, generatedAt }),
  };
}
