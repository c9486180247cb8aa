/** DESIGN §4: the complete allowed values of the alarm record's enums. */
export const ALARM_TYPES = ['TEMPERATURE', 'HUMIDITY', 'LIGHT', 'SHOCK', 'BATTERY', 'GEOFENCE'] as const;
export type AlarmType = (typeof ALARM_TYPES)[number];

export const ALARM_SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
export type AlarmSeverity = (typeof ALARM_SEVERITIES)[number];

export const ALARM_SOURCES = ['THRESHOLD', 'GEOFENCE', 'DEVICE'] as const;
export type AlarmSource = (typeof ALARM_SOURCES)[number];
