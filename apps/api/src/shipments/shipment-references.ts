import type { ReferenceCheck } from '../common/catalogue/catalogue-family';

/**
 * A catalogue record is used by an ACTIVE shipment when one of the shipment's columns, or a key
 * of one of its transport legs, holds its id. Completed (and deleted) shipments do not hold
 * records: their history outlives them.
 */
export function referencedByActiveShipments(columns: string[], legKeys: string[] = []): ReferenceCheck {
  const conditions = [...columns.map((column) => `${column} = $2`), ...legKeys.map((_, index) => `transport_legs @> $${index + 3}::jsonb`)];
  const sql = `SELECT EXISTS (SELECT 1 FROM shipments WHERE account_id = $1 AND status = 'active' AND deleted_at IS NULL AND (${conditions.join(' OR ')})) AS used`;
  return {
    what: 'an active shipment',
    async isReferenced(manager, accountId, id) {
      const rows: Array<{ used: boolean }> = await manager.query(sql, [accountId, id, ...legKeys.map((key) => JSON.stringify([{ [key]: id }]))]);
      return rows[0]?.used === true;
    },
  };
}

/** An alert preset named by a device's current settings (its open lifecycle in this account). */
export const REFERENCED_BY_DEVICE_SETTINGS: ReferenceCheck = {
  what: 'the settings of a device',
  async isReferenced(manager, accountId, id) {
    const rows: Array<{ used: boolean }> = await manager.query(
      `SELECT EXISTS (SELECT 1 FROM device_lifecycles WHERE account_id = $1 AND alert_preset_id = $2 AND ended_at IS NULL) AS used`,
      [accountId, id],
    );
    return rows[0]?.used === true;
  },
};
