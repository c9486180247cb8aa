import type { Thresholds } from '../devices';
import { CsvBuilder, POINTS_CSV_HEADER } from './report-csv';
import type { ChartSeries } from './report-pdf';
import type { ReportPoint } from './point-batches';
import { SeriesStats, summarize, type SeriesSummary } from './series-stats';

export interface ReportDevice {
  deviceId: string;
  serial: string;
  thresholds: Thresholds;
}

/** Chart resolution: about this many averaged points per device across the period. */
const CHART_BUCKETS = 600;

/**
 * Consumes the points of a report in (recorded_at, device) order, once: the CSV rows, each
 * device's statistics, and a per-device temperature series averaged into chart buckets.
 */
export class PointsReportBuilder {
  private readonly csv = new CsvBuilder(POINTS_CSV_HEADER);
  private readonly stats = new Map<string, SeriesStats>();
  private readonly buckets = new Map<string, Map<number, { sum: number; count: number }>>();
  private readonly serials = new Map<string, string>();
  private readonly bucketMs: number;

  constructor(
    private readonly devices: readonly ReportDevice[],
    private readonly period: { from: Date; to: Date },
  ) {
    for (const device of devices) {
      this.stats.set(device.deviceId, new SeriesStats(device.thresholds));
      this.buckets.set(device.deviceId, new Map());
      this.serials.set(device.deviceId, device.serial);
    }
    this.bucketMs = Math.max(60_000, Math.ceil((period.to.getTime() - period.from.getTime()) / CHART_BUCKETS));
  }

  add(points: readonly ReportPoint[]): void {
    for (const p of points) {
      const stats = this.stats.get(p.device_id);
      if (!stats) continue;
      this.csv.row([
        p.device_id,
        this.serials.get(p.device_id) ?? null,
        p.recorded_at.toISOString(),
        p.temperature,
        p.humidity,
        p.light,
        p.shock,
        p.battery,
        p.latitude,
        p.longitude,
      ]);
      stats.add(p.recorded_at, p.temperature, p.humidity);
      if (p.temperature !== null) {
        const index = Math.floor((p.recorded_at.getTime() - this.period.from.getTime()) / this.bucketMs);
        const bucket = this.buckets.get(p.device_id) as Map<number, { sum: number; count: number }>;
        const entry = bucket.get(index) ?? { sum: 0, count: 0 };
        entry.sum += p.temperature;
        entry.count++;
        bucket.set(index, entry);
      }
    }
  }

  summaryOf(deviceId: string): SeriesSummary {
    return (this.stats.get(deviceId) as SeriesStats).summary();
  }

  overall(): SeriesSummary {
    return summarize([...this.stats.values()], this.devices.map((d) => d.thresholds));
  }

  chart(): ChartSeries[] {
    const from = this.period.from.getTime();
    return this.devices.map((device) => ({
      name: device.serial,
      points: [...(this.buckets.get(device.deviceId) ?? new Map<number, { sum: number; count: number }>()).entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, { sum, count }]) => ({ at: from + (index + 0.5) * this.bucketMs, value: sum / count })),
    }));
  }

  csvFile(): Buffer {
    return this.csv.toBuffer();
  }
}
