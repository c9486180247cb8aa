import type { EntityManager } from 'typeorm';

/**
 * Which shipment a device is travelling in right now, for the alarm's `shipment_id`.
 * The shipments feature provides the real implementation (see ingest-wiring.ts); until then no
 * device is in a shipment.
 */
export interface ActiveShipmentLookup {
  activeShipmentId(manager: EntityManager, accountId: string, deviceId: string): Promise<number | null>;
}

export const NO_ACTIVE_SHIPMENTS: ActiveShipmentLookup = {
  activeShipmentId: () => Promise.resolve(null),
};
