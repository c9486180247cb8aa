import { MEASUREMENTS, type BucketRow, type PointRow } from '@app/domain';
import type { TelemetryBucketDto, TelemetryPointDto } from './dto/telemetry-point.dto';

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
