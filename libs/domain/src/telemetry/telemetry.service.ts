import type { DataSource } from 'typeorm';
import type { AccountId, KeysetPage } from '@app/vocabulary';
import type { DevicesService } from '../devices';
import { pageBucketWindow } from './telemetry-aggregation';
import { BUCKET_WIDTHS, type BucketName } from './telemetry-buckets';
import { resolveRange, type TimeRange } from './telemetry-range';
import type { PackedPoints } from './packed-points';
import { TelemetryRepository, type BucketRow, type TelemetryScope } from './telemetry.repository';

/** The range of a telemetry read (the api's `TelemetryQueryDto` satisfies it). */
export interface TelemetryRangeQuery {
  from?: string;
  to?: string;
}

export interface TelemetryOptions {
  /** The longest range [from, to) a read may span (TELEMETRY_MAX_RANGE_DAYS). */
  telemetryMaxRangeDays: number;
}

export class TelemetryService {
  constructor(
    private readonly devices: DevicesService,
    private readonly telemetry: TelemetryRepository,
    private readonly options: TelemetryOptions,
  ) {}

  async scope(accountId: AccountId, deviceId: string): Promise<TelemetryScope> {
    const device = await this.devices.get(accountId, deviceId);
    return { accountId, deviceId: device.id, lifecycleId: device.lifecycle_id };
  }

  private range(query: TelemetryRangeQuery): TimeRange {
    return resolveRange(query, new Date(), this.options.telemetryMaxRangeDays);
  }

  /** Up to limit + 1 points (the extra one tells there is a next page), packed into one text value (packed-points.ts). */
  async packedPoints(scope: TelemetryScope, query: TelemetryRangeQuery, page: KeysetPage<Date>): Promise<PackedPoints> {
    const { from, to } = this.range(query);
    return this.telemetry.packedPoints(scope, from, to, page.after, page.limit + 1);
  }

  /** Up to limit + 1 consecutive buckets, empty ones included. */
  async buckets(scope: TelemetryScope, query: TelemetryRangeQuery & { bucket: BucketName }, page: KeysetPage<Date>): Promise<BucketRow[]> {
    const widthMs = BUCKET_WIDTHS[query.bucket];
    const window = pageBucketWindow(widthMs, this.range(query), page);
    if (!window) return [];
    return this.telemetry.buckets(scope, widthMs, { first: window.first, last: window.last, from: window.pointsFrom, to: window.pointsTo });
  }
}

/** The service with its repository, for the apps (the repository stays inside the family). */
export function createTelemetryService(devices: DevicesService, dataSource: DataSource, options: TelemetryOptions): TelemetryService {
  return new TelemetryService(devices, new TelemetryRepository(dataSource), options);
}
