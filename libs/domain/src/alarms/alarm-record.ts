import type { AlarmSeverity, AlarmSource, AlarmType } from './alarm-enums';

/** An `alarms` row as the presenters need it. */
export interface AlarmRow {
  id: string;
  account_id: string;
  device_id: string;
  shipment_id: number | null;
  type: AlarmType;
  severity: AlarmSeverity;
  source: AlarmSource;
  message: string;
  created_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
}

/**
 * The alarm record of spec §2.4, exactly: the API view and the webhook `data` of
 * `alarm.created` / `alarm.resolved` are both built here.
 */
export interface AlarmRecord {
  id: string;
  device_id: string;
  shipment_id: number | null;
  type: AlarmType;
  severity: AlarmSeverity;
  source: AlarmSource;
  message: string;
  resolved: boolean;
  created_at: string;
  resolved_at: string | null;
}

export const ALARM_ROW_COLUMNS =
  'id, account_id, device_id, shipment_id, type, severity, source, message, created_at, resolved_at, resolved_by';

export function presentAlarm(row: AlarmRow): AlarmRecord {
  return {
    id: row.id,
    device_id: row.device_id,
    shipment_id: row.shipment_id,
    type: row.type,
    severity: row.severity,
    source: row.source,
    message: row.message,
    resolved: row.resolved_at !== null,
    created_at: row.created_at.toISOString(),
    resolved_at: row.resolved_at ? row.resolved_at.toISOString() : null,
  };
}
