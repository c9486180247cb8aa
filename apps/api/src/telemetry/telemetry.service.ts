import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '@app/config';
import { MEASUREMENTS, TelemetryRepository, type BucketRow, type PointRow, type TelemetryScope } from '@app/domain';
import { APP_CONFIG } from '../config/config.module';
import type { PageRequest } from '../common/paginator';
import { DevicesService } from '../devices/devices.service';
import type { TelemetryBucketDto, TelemetryPointDto } from './dto/telemetry-point.dto';
import type { TelemetryQueryDto } from './dto/telemetry-query.dto';
import { pageBucketWindow, positionDate } from './telemetry-aggregation';
import { BUCKET_WIDTHS } from './telemetry-buckets';
import { resolveRange, type TimeRange } from './telemetry-range';
import type { AccountId } from '@app/vocabulary';

export function presentPoint(row: PointRow): TelemetryPointDto {
  return {
    recorded_at: row.recorded_at.toISOString(),
    temperature: row.temperature,
    humidity: row.humidity,
    light: row.light,
    shock: row.shock,
    battery: row.battery,
    latitude: row.latitude,
    longitude: row.longitude,
  };
}

export function presentBucket(widthMs: number): (row: BucketRow) => TelemetryBucketDto {
  return (row) => {
    const stats = Object.fromEntries(
      MEASUREMENTS.map((m) => {
        const min = row[`${m}_min`];
        const avg = row[`${m}_avg`];
        const max = row[`${m}_max`];
        return [m, min === null || avg === null || max === null ? null : { min, avg, max }];
      }),
    ) as Pick<TelemetryBucketDto, (typeof MEASUREMENTS)[number]>;
    return {
      bucket_start: row.bucket_start.toISOString(),
      bucket_end: new Date(row.bucket_start.getTime() + widthMs).toISOString(),
      count: row.count,
      ...stats,
    };
  };
}

@Injectable()
export class TelemetryService {
  constructor(
    private readonly devices: DevicesService,
    private readonly telemetry: TelemetryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async scope(accountId: AccountId, deviceId: string): Promise<TelemetryScope> {
    const device = await this.devices.get(accountId, deviceId);
    return { accountId, deviceId: device.id, lifecycleId: device.lifecycle_id };
  }

  private range(query: TelemetryQueryDto): TimeRange {
    return resolveRange(query, new Date(), this.config.telemetryMaxRangeDays);
  }

  /** Up to limit + 1 points (the extra one tells the paginator there is a next page). */
  async points(scope: TelemetryScope, query: TelemetryQueryDto, page: PageRequest): Promise<PointRow[]> {
    const { from, to } = this.range(query);
    return this.telemetry.points(scope, from, to, positionDate(page), page.limit + 1);
  }

  /** Up to limit + 1 consecutive buckets, empty ones included. */
  async buckets(scope: TelemetryScope, query: TelemetryQueryDto & { bucket: keyof typeof BUCKET_WIDTHS }, page: PageRequest): Promise<BucketRow[]> {
    const widthMs = BUCKET_WIDTHS[query.bucket];
    const window = pageBucketWindow(widthMs, this.range(query), page);
    if (!window) return [];
    return this.telemetry.buckets(scope, widthMs, { first: window.first, last: window.last, from: window.pointsFrom, to: window.pointsTo });
  }
}
