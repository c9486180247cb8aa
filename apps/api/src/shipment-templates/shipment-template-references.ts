import type { ReferenceCheck } from '../common/catalogue/catalogue-family';

/**
 * A record is used by a shipment template when one of the template's columns, or a key of one
 * of its transport legs (jsonb containment, GIN-indexed), holds its id.
 */
export function referencedByShipmentTemplates(columns: string[], legKeys: string[] = []): ReferenceCheck {
  const conditions = [
    ...columns.map((column) => `${column} = $2`),
    ...legKeys.map((_, index) => `transport_legs @> $${index + 3}::jsonb`),
  ];
  const sql = `SELECT EXISTS (SELECT 1 FROM shipment_templates WHERE account_id = $1 AND (${conditions.join(' OR ')})) AS used`;
  return {
    what: 'a shipment template',
    async isReferenced(manager, accountId, id) {
      const rows: Array<{ used: boolean }> = await manager.query(sql, [accountId, id, ...legKeys.map((key) => JSON.stringify([{ [key]: id }]))]);
      return rows[0]?.used === true;
    },
  };
}
