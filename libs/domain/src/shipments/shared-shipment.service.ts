import type { DataSource } from 'typeorm';
import { displayedLimits, reportThresholds } from '../devices';
import { BUCKET_WIDTHS } from '../telemetry';
import type { SharedShipment } from './share.service';
import { presentShipmentRecord } from './shipment-record';
import type { ShipmentStatus } from './shipment-status';
import { findShipmentRow } from './shipments.repository';
import { shipmentDeviceSettings } from './shipment-devices.repository';
import { lastTrackedFix } from './tracked-points.repository';
import type { TrackingService } from './tracking.service';

/** Most buckets the page's chart draws; the bucket width is the smallest that fits the window. */
export const CHART_MAX_BUCKETS = 300;

export interface ChartBucket {
  start: Date;
  end: Date;
  min: number | null;
  avg: number | null;
  max: number | null;
}

/** What the public tracking page shows — deliberately without any identifier. */
export interface SharedShipmentView {
  name: string;
  status: ShipmentStatus;
  arrivedAt: Date | null;
  origin: string | null;
  destination: string | null;
  plannedDepartureAt: Date | null;
  plannedArrivalAt: Date | null;
  startedAt: Date;
  completedAt: Date | null;
  activeLegMode: string | null;
  lastPosition: { latitude: number; longitude: number; recordedAt: Date; source: 'tracker' | 'vessel' } | null;
  temperature: { min: number; avg: number; max: number } | null;
  chart: { from: Date; to: Date; buckets: ChartBucket[]; limits: { min: number | null; max: number | null } };
  expiresAt: Date;
}

const toDate = (value: string | null): Date | null => (value ? new Date(value) : null);

export class SharedShipmentService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly tracking: TrackingService,
  ) {}

  async view(shared: SharedShipment, now: Date = new Date()): Promise<SharedShipmentView | null> {
    const manager = this.dataSource.manager;
    const { accountId, shipmentId } = shared;
    const row = await findShipmentRow(manager, accountId, shipmentId);
    if (!row) return null;
    const record = await presentShipmentRecord(manager, row, now);
    const from = row.started_at;
    const to = row.completed_at ?? now;
    const span = Math.max(1, to.getTime() - from.getTime());
    const widthMs = Object.values(BUCKET_WIDTHS).find((width) => span / width <= CHART_MAX_BUCKETS) ?? BUCKET_WIDTHS['1d'];
    const scope = { accountId, shipmentId, deviceId: null, from, to, now };
    const buckets = await this.tracking.bucketsOf(scope, widthMs, CHART_MAX_BUCKETS + 1);

    const fix = await lastTrackedFix(manager, { accountId, shipmentId, now });
    const vessel = record.ais_position;
    let lastPosition: SharedShipmentView['lastPosition'] = fix ? { latitude: fix.latitude, longitude: fix.longitude, recordedAt: fix.recorded_at, source: 'tracker' } : null;
    if (vessel && (!lastPosition || new Date(vessel.recorded_at) > lastPosition.recordedAt)) {
      lastPosition = { latitude: vessel.latitude, longitude: vessel.longitude, recordedAt: new Date(vessel.recorded_at), source: 'vessel' };
    }

    const devices = await shipmentDeviceSettings(manager, accountId, shipmentId);
    const limits = displayedLimits(await reportThresholds(manager, accountId, devices.map((d) => ({ thresholds: d.thresholds, alertPresetId: d.alert_preset_id })), row.alert_preset_id));

    return {
      name: record.name,
      status: record.status,
      arrivedAt: toDate(record.arrived_at),
      origin: record.origin.name,
      destination: record.destination.name,
      plannedDepartureAt: toDate(record.planned_departure_at),
      plannedArrivalAt: toDate(record.planned_arrival_at),
      startedAt: row.started_at,
      completedAt: row.completed_at,
      activeLegMode: record.active_transport_leg?.mode ?? null,
      lastPosition,
      temperature: record.summary.temperature,
      chart: {
        from,
        to,
        buckets: buckets.map((b) => ({
          start: b.bucket_start,
          end: new Date(b.bucket_start.getTime() + widthMs),
          min: b.temperature_min,
          avg: b.temperature_avg,
          max: b.temperature_max,
        })),
        limits: { min: limits.temperature_min, max: limits.temperature_max },
      },
      expiresAt: shared.expiresAt,
    };
  }
}
