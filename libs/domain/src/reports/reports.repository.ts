import { createHash } from 'node:crypto';
import { newId, onPrimary } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import { forEachPointBatch, POINT_BATCH_SIZE, type ReportPoint } from './point-batches';
import { trackedPointsParams } from '../shipments';
import { REPORTS_QUERIES as Q } from './reports.queries';

export type ReportSubject = { type: 'shipment'; id: number } | { type: 'device'; id: string };

export interface NewReportFile {
  id?: string;
  accountId: AccountId;
  subject: ReportSubject;
  name: string;
  contentType: string;
  content: Buffer;
  period: { from: Date; to: Date };
  generatedAt: Date;
}

export interface ReportRow {
  id: string;
  account_id: string;
  subject_type: 'shipment' | 'device';
  shipment_id: number | null;
  device_id: string | null;
  name: string;
  content_type: string;
  size_bytes: string;
  sha256: string;
  period_from: Date;
  period_to: Date;
  generated_at: Date;
}

/** Stores a generated file with its metadata (size and SHA-256 computed here), in the caller's transaction. */
export async function storeReportFile(db: Db, file: NewReportFile): Promise<string> {
  const id = file.id ?? newId();
  await sql.run(db, Q.insertReport, [
    file.accountId,
    id,
    file.subject.type,
    file.subject.type === 'shipment' ? file.subject.id : null,
    file.subject.type === 'device' ? file.subject.id : null,
    file.name,
    file.contentType,
    file.content.length,
    createHash('sha256').update(file.content).digest('hex'),
    file.period.from.toISOString(),
    file.period.to.toISOString(),
    file.generatedAt.toISOString(),
  ]);
  if ((await sql.count(db, Q.insertReportFile, [file.accountId, id, file.content])) !== 1) throw new Error(`report ${id} was not stored`);
  return id;
}

export function findReportRow(db: Db, accountId: AccountId, reportId: string): Promise<ReportRow | null> {
  return sql.first<ReportRow>(db, Q.reportOfAccount, [accountId, reportId]);
}

export interface ReportFilters {
  subjectType?: 'shipment' | 'device' | null;
  shipmentId?: number | null;
  deviceId?: string | null;
  /** Keyset: only reports with a lower id (UUIDv7 ids are time ordered). */
  before?: string | null;
}

/** The account's reports, newest first, at most `limit`. */
export function listReportRows(db: Db, accountId: AccountId, filters: ReportFilters, limit: number): Promise<ReportRow[]> {
  return sql.rows<ReportRow>(db, Q.reportsOfAccount, [
    accountId,
    limit,
    filters.subjectType ?? null,
    filters.shipmentId ?? null,
    filters.deviceId ?? null,
    filters.before ?? null,
  ]);
}

/** The given reports of the account, by content type. */
export function reportRowsByIds(db: Db, accountId: AccountId, reportIds: readonly string[]): Promise<ReportRow[]> {
  return sql.rows<ReportRow>(db, Q.reportsByIds, [accountId, reportIds]);
}

/** `length` bytes from `offset` (0-based) of a stored file; shorter at the end of the file, empty if there is no such report. */
export async function readReportChunk(db: Db, accountId: AccountId, reportId: string, offset: number, length: number): Promise<Buffer> {
  const params = [accountId, reportId, offset + 1, length] as const;
  // May read the replica; a report it has not replayed yet (just generated) is read on the primary.
  const row = (await sql.first<{ chunk: Buffer }>(db, Q.reportFileChunk, params)) ?? (await onPrimary(() => sql.first<{ chunk: Buffer }>(db, Q.reportFileChunk, params)));
  return row?.chunk ?? Buffer.alloc(0);
}

export async function shipmentHasReport(db: Db, accountId: AccountId, shipmentId: number): Promise<boolean> {
  return (await sql.first(db, Q.shipmentHasReport, [accountId, shipmentId])) !== null;
}

export interface ReportDeviceLifecycle {
  device_id: string;
  serial_number: string;
  lifecycle_id: string;
  account_id: AccountId;
  account_name: string;
  started_at: Date;
  label: string | null;
  thresholds: unknown;
  alert_preset_id: string | null;
}

/** An approved, non-deleted device with its current ownership, or null. */
export function findOwnedDevice(db: Db, deviceId: string): Promise<ReportDeviceLifecycle | null> {
  return sql.first<ReportDeviceLifecycle>(db, Q.ownedDevice, [deviceId]);
}

export interface ReportAttachment {
  device_id: string;
  serial_number: string;
  label: string | null;
  thresholds: unknown;
  alert_preset_id: string | null;
  attached_at: Date;
  detached_at: Date | null;
}

/** Every attachment of the shipment, in attachment order. */
export function shipmentReportAttachments(db: Db, accountId: AccountId, shipmentId: number): Promise<ReportAttachment[]> {
  return sql.rows<ReportAttachment>(db, Q.shipmentAttachments, [accountId, shipmentId]);
}

export interface ReportAlarm {
  at: Date;
  type: string;
  severity: string;
  message: string;
  resolved_at: Date | null;
}

export function shipmentReportAlarms(db: Db, accountId: AccountId, shipmentId: number): Promise<Array<ReportAlarm & { serial_number: string }>> {
  return sql.rows<ReportAlarm & { serial_number: string }>(db, Q.shipmentAlarms, [accountId, shipmentId]);
}

/** The alarms of a device lifecycle raised in [from, to). */
export function lifecycleReportAlarms(db: Db, accountId: AccountId, lifecycleId: string, period: { from: Date; to: Date }): Promise<ReportAlarm[]> {
  return sql.rows<ReportAlarm>(db, Q.lifecycleAlarms, [accountId, lifecycleId, period.from.toISOString(), period.to.toISOString()]);
}

type PointHandler = (points: ReportPoint[]) => void | Promise<void>;

/** The points a completed (or active, up to `until`) shipment tracked, a batch at a time in (recorded_at, device_id) order. */
export function forEachShipmentPointBatch(
  db: Db,
  accountId: AccountId,
  shipmentId: number,
  until: Date,
  handle: PointHandler,
  batchSize = POINT_BATCH_SIZE,
): Promise<void> {
  return forEachPointBatch(
    (after, limit) =>
      sql.rows<ReportPoint>(db, Q.shipmentPointsPage, [
        ...trackedPointsParams({ accountId, shipmentId, now: until }),
        after ? after.recorded_at.toISOString() : null,
        after ? after.device_id : null,
        limit,
      ]),
    handle,
    batchSize,
  );
}

/** The points of a device lifecycle in [from, to), a batch at a time in (recorded_at, device_id) order. */
export function forEachLifecyclePointBatch(
  db: Db,
  deviceId: string,
  lifecycleId: string,
  period: { from: Date; to: Date },
  handle: PointHandler,
  batchSize = POINT_BATCH_SIZE,
): Promise<void> {
  return forEachPointBatch(
    (after, limit) =>
      sql.rows<ReportPoint>(db, Q.lifecyclePointsPage, [
        deviceId,
        lifecycleId,
        period.from.toISOString(),
        period.to.toISOString(),
        after ? after.recorded_at.toISOString() : null,
        after ? after.device_id : null,
        limit,
      ]),
    handle,
    batchSize,
  );
}

