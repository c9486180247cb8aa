import type { DataSource } from 'typeorm';
import { writeOutboxEvent } from '@app/events';
import type { AccountId, KeysetPage } from '@app/vocabulary';
import { ConflictError, NotFoundError } from '../errors';
import type { AlarmSeverity } from './alarm-enums';
import { presentAlarm, type AlarmRow } from './alarm-record';
import { findAlarmRow, listAlarmRows, lockAlarmRow, markAlarmResolved } from './alarms.repository';

export class AlarmAlreadyResolvedError extends ConflictError {
  constructor() {
    super('alarm_already_resolved', 'The alarm is resolved; an alarm cannot be set back to unresolved.');
  }
}

/** The filters of an alarm list (the api's `AlarmQueryDto` satisfies it). */
export interface AlarmFilters {
  resolved?: 'true' | 'false';
  severity?: AlarmSeverity;
  device_id?: string;
  shipment_id?: number;
  /** Only the alarms of this device lifecycle (a device's current ownership). */
  lifecycle_id?: string;
}

export class AlarmsService {
  constructor(private readonly dataSource: DataSource) {}

  /** Newest first (ids are time ordered). */
  async list(accountId: AccountId, filters: AlarmFilters, page: KeysetPage<string>): Promise<AlarmRow[]> {
    return listAlarmRows(
      this.dataSource,
      accountId,
      {
        resolved: filters.resolved === undefined ? undefined : filters.resolved === 'true',
        severity: filters.severity,
        deviceId: filters.device_id,
        shipmentId: filters.shipment_id,
        lifecycleId: filters.lifecycle_id,
        before: page.after,
      },
      page.limit + 1,
    );
  }

  async get(accountId: AccountId, alarmId: string): Promise<AlarmRow> {
    const alarm = await findAlarmRow(this.dataSource.manager, accountId, alarmId);
    if (!alarm) throw new NotFoundError('Alarm');
    return alarm;
  }

  /**
   * `true` resolves and publishes `alarm.resolved` in the same transaction; resolving again
   * changes nothing and publishes nothing. `resolved_by` stays null: the caller is a service
   * account, never a human user. `false` is accepted only while the alarm is unresolved.
   */
  async setResolved(accountId: AccountId, alarmId: string, resolved: boolean): Promise<AlarmRow> {
    return this.dataSource.transaction(async (manager) => {
      const alarm = await lockAlarmRow(manager, accountId, alarmId);
      if (!alarm) throw new NotFoundError('Alarm');
      if (!resolved) {
        if (alarm.resolved_at) throw new AlarmAlreadyResolvedError();
        return alarm;
      }
      if (alarm.resolved_at) return alarm;
      const updated = await markAlarmResolved(manager, accountId, alarmId);
      await writeOutboxEvent(manager, {
        accountId,
        type: 'alarm.resolved',
        aggregateType: 'alarm',
        aggregateId: updated.id,
        data: { ...presentAlarm(updated) },
      });
      return updated;
    });
  }
}
