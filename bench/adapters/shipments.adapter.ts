import type { DataSource, EntityManager } from 'typeorm';
import { newId } from '../../libs/database/src';
import { loadShipmentRecord } from '../../libs/domain/src';
import type { SeededDevice } from '../seed/devices';
import type { AccountId } from '@app/vocabulary';

/**
 * What the api-detail scenario needs from the shipments feature: one seeded shipment, and the
 * detail read done the project's way (`loadShipmentRecord`, the function GET /shipments/{id}/
 * uses) over a bare pg pool.
 */
export interface ShipmentDetailAdapter {
  seed(db: DataSource, accountId: AccountId, devices: readonly SeededDevice[]): Promise<number>;
  detail(sql: DataSource, accountId: AccountId, shipmentId: number): Promise<unknown>;
}

const circle = (latitude: number, longitude: number): string => JSON.stringify({ type: 'circle', center: { latitude, longitude }, radius_m: 500 });

export function shipmentDetailAdapter(): ShipmentDetailAdapter {
  return {
    async seed(db, accountId, devices) {
      const [origin, destination] = [newId(), newId()];
      for (const [id, name, lat, lon] of [[origin, 'Bench origin', 41.0, 28.9], [destination, 'Bench destination', 39.9, 32.8]] as const) {
        await db.query(
          `INSERT INTO locations (id, account_id, name, kind, geofence, automation) VALUES ($1, $2, $3, 'warehouse', $4::jsonb, '{}'::jsonb)`,
          [id, accountId, name, circle(lat, lon)],
        );
      }
      const [{ id }] = (await db.query(
        `INSERT INTO shipments (account_id, reference, name, origin_location_id, destination_location_id, started_at)
         VALUES ($1, 'BENCH-1', 'Bench shipment', $2, $3, now() - interval '1 day') RETURNING id`,
        [accountId, origin, destination],
      )) as Array<{ id: number }>;
      for (const device of devices.slice(0, 3)) {
        await db.query(
          `INSERT INTO shipment_devices (shipment_id, account_id, device_id, lifecycle_id, attached_at) VALUES ($1, $2, $3, $4, now() - interval '1 day')`,
          [id, accountId, device.deviceId, device.lifecycleId],
        );
      }
      return id;
    },
    detail: (sql, accountId, shipmentId) => loadShipmentRecord(sql as unknown as EntityManager, accountId, shipmentId),
  };
}
