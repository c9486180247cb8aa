import type { EntityManager } from 'typeorm';

/**
 * Which shipment a device is travelling in right now, for the alarm's `shipment_id`.
 * The shipments feature provides the real implementation, wired in ingest-wiring.ts.
 */
export interface ActiveShipmentLookup {
  activeShipmentId(manager: EntityManager, accountId: string, deviceId: string): Promise<number | null>;
}

export const NO_ACTIVE_SHIPMENTS: ActiveShipmentLookup = {
  activeShipmentId: () => Promise.resolve(null),
};

/**
 * An open attachment (detached_at IS NULL) exists only while its shipment is active: completion
 * and deletion close them, and the partial unique index allows one per device.
 */
export const ATTACHED_DEVICE_SHIPMENTS: ActiveShipmentLookup = {
  async activeShipmentId(manager, accountId, deviceId) {
    const rows = (await manager.query(
      `SELECT shipment_id FROM shipment_devices WHERE account_id = $1 AND device_id = $2 AND detached_at IS NULL`,
      [accountId, deviceId],
    )) as Array<{ shipment_id: number }>;
    return rows[0]?.shipment_id ?? null;
  },
};
