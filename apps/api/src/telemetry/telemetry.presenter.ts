import { MEASUREMENTS, unpackPoints, type BucketRow, type PackedPoints, type PointRow } from '@app/domain';
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

/**
 * A number PostgreSQL writes otherwise than JSON.stringify (after the pg driver's parseFloat)
 * would: exponent notation (`1e-05`, `1.5e+20`), `-0`, `NaN`, `Infinity`. Only after a `:`, so
 * field names never match.
 */
const UNLIKE_JSON_NUMBER = /:(-?\d+(?:\.\d+)?e[+-]?\d+|NaN|-?Infinity|-0)(?=[,}])/g;

function asJsonNumber(_match: string, text: string): string {
  const value = parseFloat(text);
  return `:${Number.isFinite(value) ? String(value) : 'null'}`;
}

const DAY_MS = 86_400_000;
const LAST_ISO_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * `new Date(ms).toISOString()` of consecutive instants, the date part computed once per day:
 * a page of one-minute points spans a day or two, and toISOString was a third of the page's cost.
 */
class IsoTimes {
  private day = Number.NaN;
  private prefix = '';

  format(ms: number): string {
    if (!(ms >= 0 && ms <= LAST_ISO_MS)) return new Date(ms).toISOString();
    const day = Math.floor(ms / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.prefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    }
    let rest = ms - day * DAY_MS;
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = Math.floor(rest / 1000);
    return `${this.prefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
  }
}

/**
 * A page of packed points as the JSON text of `data` — what `JSON.stringify(rows.map(presentPoint))`
 * writes for the same rows read through the pg driver, byte for byte — and the time of its last
 * point (the keyset position of `links.next`): at most `limit` points; `more` when the query found
 * one beyond them.
 */
export function presentPackedPoints(packed: PackedPoints, limit: number): { json: string; last: Date | null; more: boolean } {
  const points = unpackPoints(packed);
  const more = points.length > limit;
  const count = more ? limit : points.length;
  const times = new IsoTimes();
  const parts = new Array<string>(count);
  for (let i = 0; i < count; i++) parts[i] = `{"recorded_at":"${times.format(points[i].recordedMs)}"${points[i].rest}`;
  const json = `[${parts.join(',')}]`.replace(UNLIKE_JSON_NUMBER, asJsonNumber);
  return { json, last: count > 0 ? new Date(points[count - 1].recordedMs) : null, more };
}
