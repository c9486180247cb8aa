import type { DataSource } from 'typeorm';
import { invalidField, NotFoundError } from '../errors';
import { pageBucketWindow, BUCKET_WIDTHS, type BucketName, type BucketRow, type PointRow } from '../telemetry';
import { findShipmentRow, type ShipmentRow } from './shipments.repository';
import { deviceInShipment } from './shipment-devices.repository';
import { trackedBuckets, trackedPoints } from './tracked-points.repository';
import type { AccountId, KeysetPage, TimeAndId } from '@app/vocabulary';

export type TrackedPointRow = PointRow & { device_id: string };

/** The narrowing of a tracking request (the api's `TrackingQueryDto` satisfies it). */
export interface TrackingFilters {
  from?: string;
  to?: string;
  device_id?: string;
}

export interface TrackingScope {
  accountId: AccountId;
  shipmentId: number;
  deviceId: string | null;
  /** The shipment window, narrowed by `from`/`to`: [from, to). */
  from: Date;
  to: Date;
  now: Date;
}

/**
 * Telemetry of a shipment's devices, each only while attached, inside the shipment window
 * [started_at, completed_at or now) — the same points, paging and downsampling as device telemetry.
 */
export class TrackingService {
  constructor(private readonly dataSource: DataSource) {}

  async scope(accountId: AccountId, shipmentId: number, query: TrackingFilters, now: Date = new Date()): Promise<TrackingScope> {
    const shipment: ShipmentRow | null = await findShipmentRow(this.dataSource.manager, accountId, shipmentId);
    if (!shipment) throw new NotFoundError('Shipment');
    if (query.from && query.to && new Date(query.from).getTime() >= new Date(query.to).getTime()) {
      throw invalidField('to', 'to must be later than from', 'not_after_from');
    }
    if (query.device_id) {
      const attached = await deviceInShipment(this.dataSource, accountId, shipmentId, query.device_id);
      if (!attached) throw invalidField('device_id', 'device_id names no device of this shipment', 'not_in_shipment');
    }
    const end = shipment.completed_at ?? now;
    return {
      accountId,
      shipmentId,
      deviceId: query.device_id ?? null,
      from: new Date(Math.max(shipment.started_at.getTime(), query.from ? new Date(query.from).getTime() : 0)),
      to: new Date(Math.min(end.getTime(), query.to ? new Date(query.to).getTime() : Number.POSITIVE_INFINITY)),
      now,
    };
  }

  /** Up to limit + 1 points after the (recorded_at, device_id) keyset position. */
  async points(scope: TrackingScope, page: KeysetPage<TimeAndId>): Promise<TrackedPointRow[]> {
    if (scope.from.getTime() >= scope.to.getTime()) return [];
    const after = page.after ? { recordedAt: page.after.at, deviceId: page.after.id } : null;
    return trackedPoints<TrackedPointRow>(this.dataSource, { ...scope, from: scope.from, to: scope.to }, after, page.limit + 1);
  }

  /** Up to limit + 1 consecutive buckets (empty ones included) over every tracked point. */
  async buckets(scope: TrackingScope, bucket: BucketName, page: KeysetPage<Date>): Promise<BucketRow[]> {
    return this.bucketsOf(scope, BUCKET_WIDTHS[bucket], page.limit + 1, page);
  }

  /** The same for a chart: `count` buckets of any width from the start of the scope. */
  async bucketsOf(scope: TrackingScope, widthMs: number, count: number, page: KeysetPage<Date> = { limit: count - 1, after: null }): Promise<BucketRow[]> {
    if (scope.from.getTime() >= scope.to.getTime()) return [];
    const window = pageBucketWindow(widthMs, scope, { ...page, limit: count - 1 });
    if (!window) return [];
    return trackedBuckets<BucketRow>(this.dataSource, { ...scope, from: window.pointsFrom, to: window.pointsTo }, widthMs, window);
  }
}
