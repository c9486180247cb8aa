import type { DataSource } from 'typeorm';
import type { AccountId } from '@app/vocabulary';

export interface SeededDevice {
  deviceId: string;
  lifecycleId: string;
}

/**
 * `count` approved devices owned by the account since `ownedSince`, in one statement
 * (generate_series). Ordered by device id, the order of the device list.
 */
export async function seedDevices(db: DataSource, accountId: AccountId, count: number, ownedSince: Date, serialPrefix: string): Promise<SeededDevice[]> {
  const rows = (await db.query(
    `WITH d AS (
       INSERT INTO devices (id, serial_number, model, hardware_revision, firmware_version, approval_status, approved_at)
       SELECT gen_random_uuid(), $2 || '-' || lpad(i::text, 6, '0'), 'ColdTrack T4', 'r2', '4.2.' || (i % 5), 'approved', now()
         FROM generate_series(1, $1::int) AS i
       RETURNING id, serial_number)
     INSERT INTO device_lifecycles (id, device_id, account_id, started_at, label, thresholds)
     SELECT gen_random_uuid(), d.id, $3, $4,
            CASE WHEN right(d.serial_number, 1) IN ('0', '5') THEN NULL ELSE 'Reefer ' || right(d.serial_number, 4) END,
            '{"temperature_min": 2, "temperature_max": 8}'::jsonb
       FROM d
     RETURNING device_id, id`,
    [count, serialPrefix, accountId, ownedSince.toISOString()],
  )) as Array<{ device_id: string; id: string }>;
  return rows.map((r) => ({ deviceId: r.device_id, lifecycleId: r.id })).sort((a, b) => (a.deviceId < b.deviceId ? -1 : 1));
}
