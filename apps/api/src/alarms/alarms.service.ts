import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { findAlarmRow, listAlarmRows, lockAlarmRow, markAlarmResolved, presentAlarm, type AlarmRow } from '@app/domain';
import { writeOutboxEvent } from '@app/events';
import { ConflictError, NotFoundError } from '../common/api-error';
import type { PageRequest } from '../common/paginator';
import type { AlarmQueryDto } from './dto/alarm-query.dto';
import type { AccountId } from '@app/vocabulary';

export class AlarmAlreadyResolvedError extends ConflictError {
  constructor() {
    super('alarm_already_resolved', 'The alarm is resolved; an alarm cannot be set back to unresolved.');
  }
}

export interface AlarmFilters extends Pick<AlarmQueryDto, 'resolved' | 'severity' | 'device_id' | 'shipment_id'> {
  /** Only the alarms of this device lifecycle (a device's current ownership). */
  lifecycle_id?: string;
}

@Injectable()
export class AlarmsService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Newest first (ids are time ordered). */
  async list(accountId: AccountId, filters: AlarmFilters, page: PageRequest): Promise<AlarmRow[]> {
    const after = page.after?.[0];
    return listAlarmRows(
      this.dataSource,
      accountId,
      {
        resolved: filters.resolved === undefined ? undefined : filters.resolved === 'true',
        severity: filters.severity,
        deviceId: filters.device_id,
        shipmentId: filters.shipment_id,
        lifecycleId: filters.lifecycle_id,
        before: typeof after === 'string' ? after : null,
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
