import { newId } from '@app/database';
import { sql, type Db } from '@app/database/sql';
import type { AccountId } from '@app/vocabulary';
import type { AlarmSeverity, AlarmSource, AlarmType } from './alarm-enums';
import type { AlarmRow } from './alarm-record';
import { ALARM_QUERIES as Q } from './alarms.queries';

export interface AlarmInsert {
  deviceId: string;
  lifecycleId: string;
  shipmentId: number | null;
  type: AlarmType;
  severity: AlarmSeverity;
  source: AlarmSource;
  message: string;
  triggeredAt: Date | null;
  geofenceId: string | null;
}

export interface AlarmListFilters {
  resolved?: boolean;
  severity?: string;
  deviceId?: string;
  shipmentId?: number;
  lifecycleId?: string;
  /** Keyset: only alarms older than this id. */
  before?: string | null;
}

/** The new row, or null when the lifecycle already has an unresolved alarm of that type. */
export function insertAlarm(db: Db, accountId: AccountId, alarm: AlarmInsert): Promise<AlarmRow | null> {
  return sql.first<AlarmRow>(db, Q.insert, [
    accountId,
    newId(),
    alarm.deviceId,
    alarm.lifecycleId,
    alarm.shipmentId,
    alarm.type,
    alarm.severity,
    alarm.source,
    alarm.message,
    alarm.triggeredAt,
    alarm.geofenceId,
  ]);
}

/** One alarm inside its tenant (the dispatcher reloads by (account_id, id)). */
export function findAlarmRow(db: Db, accountId: AccountId, alarmId: string): Promise<AlarmRow | null> {
  return sql.first<AlarmRow>(db, Q.find, [accountId, alarmId]);
}

/** The same, locked until the transaction ends. */
export function lockAlarmRow(db: Db, accountId: AccountId, alarmId: string): Promise<AlarmRow | null> {
  return sql.first<AlarmRow>(db, Q.findForUpdate, [accountId, alarmId]);
}

export async function markAlarmResolved(db: Db, accountId: AccountId, alarmId: string): Promise<AlarmRow> {
  const row = await sql.first<AlarmRow>(db, Q.resolve, [accountId, alarmId]);
  if (!row) throw new Error(`alarm ${alarmId} vanished while locked`);
  return row;
}

export function listAlarmRows(db: Db, accountId: AccountId, filters: AlarmListFilters, limit: number): Promise<AlarmRow[]> {
  return sql.rows<AlarmRow>(db, Q.list, [
    accountId,
    limit,
    filters.resolved ?? null,
    filters.severity ?? null,
    filters.deviceId ?? null,
    filters.shipmentId ?? null,
    filters.lifecycleId ?? null,
    filters.before ?? null,
  ]);
}

