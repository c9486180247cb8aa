import type { DataSource } from 'typeorm';
import { TelemetryPartitions } from '@app/domain';
import type { SeededDevice } from './devices';

export const MINUTE_MS = 60_000;

/** Monthly partitions for [from, to], created before anything is written (neither side pays for them). */
export async function ensurePartitions(db: DataSource, from: Date, to: Date): Promise<void> {
  await new TelemetryPartitions(db).ensureRange(from, to);
}

/** One point per minute for `minutes` minutes from `from` (a cold-chain reefer: 3–7 °C, moving). */
export async function seedMinutePoints(db: DataSource, device: SeededDevice, from: Date, minutes: number): Promise<void> {
  await db.query(
    `INSERT INTO telemetry_points (device_id, lifecycle_id, recorded_at, latitude, longitude, temperature, humidity, light, shock, battery)
     SELECT $1, $2, $3::timestamptz + i * interval '1 minute',
            52.37 + i * 0.00001, 4.89 + i * 0.00002,
            round((5 + 2 * sin(i / 97.0))::numeric, 2), round((60 + 10 * cos(i / 131.0))::numeric, 1),
            CASE WHEN i % 720 = 0 THEN 120 ELSE 0 END, round((0.05 + 0.04 * sin(i / 7.0))::numeric, 3),
            round((100 - i * 0.001)::numeric, 1)
       FROM generate_series(0, $4::int - 1) AS i`,
    [device.deviceId, device.lifecycleId, from.toISOString(), minutes],
  );
  await db.query('ANALYZE telemetry_points');
}
