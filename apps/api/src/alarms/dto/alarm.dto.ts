import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined } from 'class-validator';
import { ALARM_SEVERITIES, ALARM_SOURCES, ALARM_TYPES, presentAlarm, type AlarmRow } from '@app/domain';

/** The alarm record of spec §2.4 (the webhook `data` of alarm events) plus `resolved_by`. */
export class AlarmDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'uuid' }) device_id: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The shipment the device was travelling in when the alarm was raised.' })
  shipment_id: number | null;
  @ApiProperty({ enum: ALARM_TYPES }) type: (typeof ALARM_TYPES)[number];
  @ApiProperty({ enum: ALARM_SEVERITIES }) severity: (typeof ALARM_SEVERITIES)[number];
  @ApiProperty({ enum: ALARM_SOURCES }) source: (typeof ALARM_SOURCES)[number];
  @ApiProperty({ example: 'Temperature 9.4 °C above the maximum of 8 °C for at least 10 min.' }) message: string;
  @ApiProperty() resolved: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null while unresolved.' }) resolved_at: string | null;
  @ApiProperty({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The human user who resolved it in the web panel; null when resolved through the API (never the service account).',
  })
  resolved_by: string | null;

  static from(row: AlarmRow): AlarmDto {
    return { ...presentAlarm(row), resolved_by: row.resolved_by };
  }
}

/** Only `resolved` is accepted. */
export class UpdateAlarmDto {
  @ApiProperty({ description: '`true` resolves the alarm (a repeat changes nothing); `false` on a resolved alarm is a 409 `alarm_already_resolved`.' })
  @IsDefined()
  @IsBoolean()
  resolved: boolean;
}
