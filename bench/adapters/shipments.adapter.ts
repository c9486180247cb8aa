import type { DataSource } from 'typeorm';
import type { SqlShim } from '../baseline/sql-shim';
import type { SeededDevice } from '../seed/devices';

/**
 * What the api-detail scenario needs from the shipments feature, which has not landed on this
 * branch: one seeded shipment, and the detail read done the project's way over a bare pg pool.
 */
export interface ShipmentDetailAdapter {
  /** Creates one active shipment of the account with some of its devices (direct SQL or the domain service); returns its id. */
  seed(db: DataSource, accountId: string, devices: readonly SeededDevice[]): Promise<number>;
  /**
   * The baseline's handler: the same SQL and presentation as GET /shipments/{id}/ (construct the
   * project's shipments repository/service with `sql` as its DataSource), null when not found.
   */
  detail(sql: SqlShim, accountId: string, shipmentId: number): Promise<unknown>;
}

/**
 * LEAD — wire after feat/shipments merges: return an adapter built on the shipments repository
 * (e.g. `new ShipmentsRepository(sql as unknown as DataSource)` from
 * `../../apps/api/src/shipments/...` and the DTO's presenter). While this returns null, the
 * api-detail scenario reports "skipped (adapter not wired)" once the route is served.
 */
export function shipmentDetailAdapter(): ShipmentDetailAdapter | null {
  return null;
}
