import { defineQueries } from '@app/database/sql';
import { ALARM_ROW_COLUMNS } from './alarm-record';

export const ALARM_QUERIES = defineQueries({
  owner: 'alarms',
  tables: ['alarms'],
  tenant: {
    insert: `
      INSERT INTO alarms (account_id, id, device_id, lifecycle_id, shipment_id, type, severity, source, message, triggered_at, geofence_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
      ON CONFLICT (lifecycle_id, type) WHERE resolved_at IS NULL DO NOTHING
      RETURNING ${ALARM_ROW_COLUMNS}`,
    find: `SELECT ${ALARM_ROW_COLUMNS} FROM alarms WHERE account_id = $1 AND id = $2`,
    findForUpdate: `SELECT ${ALARM_ROW_COLUMNS} FROM alarms WHERE account_id = $1 AND id = $2 FOR UPDATE`,
    resolve: `UPDATE alarms SET resolved_at = now(), updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING ${ALARM_ROW_COLUMNS}`,
    /** Newest first (ids are time ordered); every filter optional (null = any). */
    list: `
      SELECT ${ALARM_ROW_COLUMNS} FROM alarms
       WHERE account_id = $1
         AND ($3::boolean IS NULL OR (resolved_at IS NOT NULL) = $3)
         AND ($4::text IS NULL OR severity = $4)
         AND ($5::uuid IS NULL OR device_id = $5)
         AND ($6::integer IS NULL OR shipment_id = $6)
         AND ($7::uuid IS NULL OR lifecycle_id = $7)
         AND ($8::uuid IS NULL OR id < $8)
       ORDER BY id DESC LIMIT $2`,
  },
  // The list may lag; an alarm read by id is read on the primary.
  replica: ['list'],
});
