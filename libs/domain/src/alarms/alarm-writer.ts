import type { EntityManager } from 'typeorm';
import { newId } from '@app/database';
import { writeOutboxEvent } from '@app/events';
import type { AlarmSeverity, AlarmSource, AlarmType } from './alarm-enums';
import { ALARM_ROW_COLUMNS, presentAlarm, type AlarmRecord, type AlarmRow } from './alarm-record';
import type { AccountId } from '@app/vocabulary';

export interface NewAlarm {
  accountId: AccountId;
  deviceId: string;
  lifecycleId: string;
  shipmentId: number | null;
  type: AlarmType;
  severity: AlarmSeverity;
  source: AlarmSource;
  message: string;
  /** Recorded time of the point that raised it. */
  triggeredAt: Date | null;
  geofenceId?: string | null;
}

/**
 * Inserts an alarm and its `alarm.created` outbox event with the caller's transaction manager:
 * both exist or neither does. Returns null, writing nothing, when the lifecycle already has an
 * unresolved alarm of that type (the partial unique index decides, so concurrent raisers agree).
 */
export async function raiseAlarm(manager: EntityManager, alarm: NewAlarm): Promise<AlarmRecord | null> {
  const rows = (await manager.query(
    `INSERT INTO alarms (id, account_id, device_id, lifecycle_id, shipment_id, type, severity, source, message, triggered_at, geofence_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (lifecycle_id, type) WHERE resolved_at IS NULL DO NOTHING
     RETURNING ${ALARM_ROW_COLUMNS}`,
    [
      newId(),
      alarm.accountId,
      alarm.deviceId,
      alarm.lifecycleId,
      alarm.shipmentId,
      alarm.type,
      alarm.severity,
      alarm.source,
      alarm.message,
      alarm.triggeredAt,
      alarm.geofenceId ?? null,
    ],
  )) as AlarmRow[];
  if (rows.length === 0) return null;
  const record = presentAlarm(rows[0]);
  await writeOutboxEvent(manager, {
    accountId: alarm.accountId,
    type: 'alarm.created',
    aggregateType: 'alarm',
    aggregateId: record.id,
    data: { ...record },
  });
  return record;
}
