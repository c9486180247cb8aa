import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ALARM_ROW_COLUMNS, findAlarmRow, presentAlarm, type AlarmRow } from '@app/domain';
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
    const params: unknown[] = [accountId, page.limit + 1];
    const where = ['account_id = $1'];
    const add = (condition: (placeholder: string) => string, value: unknown): void => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (filters.resolved !== undefined) where.push(filters.resolved === 'true' ? 'resolved_at IS NOT NULL' : 'resolved_at IS NULL');
    if (filters.severity) add((p) => `severity = ${p}`, filters.severity);
    if (filters.device_id) add((p) => `device_id = ${p}`, filters.device_id);
    if (filters.shipment_id !== undefined) add((p) => `shipment_id = ${p}`, filters.shipment_id);
    if (filters.lifecycle_id) add((p) => `lifecycle_id = ${p}`, filters.lifecycle_id);
    const after = page.after?.[0];
    if (typeof after === 'string') add((p) => `id < ${p}`, after);
    return (await this.dataSource.query(
      `SELECT ${ALARM_ROW_COLUMNS} FROM alarms WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT $2`,
      params,
    )) as AlarmRow[];
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
      const [alarm] = (await manager.query(`SELECT ${ALARM_ROW_COLUMNS} FROM alarms WHERE account_id = $1 AND id = $2 FOR UPDATE`, [
        accountId,
        alarmId,
      ])) as AlarmRow[];
      if (!alarm) throw new NotFoundError('Alarm');
      if (!resolved) {
        if (alarm.resolved_at) throw new AlarmAlreadyResolvedError();
        return alarm;
      }
      if (alarm.resolved_at) return alarm;
      const [rows] = (await manager.query(
        `UPDATE alarms SET resolved_at = now(), updated_at = now() WHERE account_id = $1 AND id = $2 RETURNING ${ALARM_ROW_COLUMNS}`,
        [accountId, alarmId],
      )) as [AlarmRow[], number];
      const updated = rows[0];
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
