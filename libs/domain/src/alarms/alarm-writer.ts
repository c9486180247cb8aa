import type { Db } from '@app/database/sql';
import { writeOutboxEvent } from '@app/events';
import type { AlarmSeverity, AlarmSource, AlarmType } from './alarm-enums';
import { presentAlarm, type AlarmRecord } from './alarm-record';
import { insertAlarm } from './alarms.repository';
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
export async function raiseAlarm(manager: Db, alarm: NewAlarm): Promise<AlarmRecord | null> {
  const row = await insertAlarm(manager, alarm.accountId, {
    deviceId: alarm.deviceId,
    lifecycleId: alarm.lifecycleId,
    shipmentId: alarm.shipmentId,
    type: alarm.type,
    severity: alarm.severity,
    source: alarm.source,
    message: alarm.message,
    triggeredAt: alarm.triggeredAt,
    geofenceId: alarm.geofenceId ?? null,
  });
  if (!row) return null;
  const record = presentAlarm(row);
  await writeOutboxEvent(manager, {
    accountId: alarm.accountId,
    type: 'alarm.created',
    aggregateType: 'alarm',
    aggregateId: record.id,
    data: { ...record },
  });
  return record;
}
