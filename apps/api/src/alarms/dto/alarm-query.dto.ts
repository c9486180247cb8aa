import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { ALARM_SEVERITIES, type AlarmSeverity } from '@app/domain';
import { PageQueryDto } from '../../common/paging';

/** Filters of a device's alarm list. */
export class DeviceAlarmQueryDto extends PageQueryDto {
  // A boolean filter in the API description (typed clients take true/false); on the wire the query
  // string carries the words `true` or `false`, validated as such.
  @ApiPropertyOptional({ type: 'boolean', description: 'Only resolved (`true`) or unresolved (`false`) alarms.' })
  @IsOptional()
  @IsIn(['true', 'false'])
  resolved?: 'true' | 'false';

  @ApiPropertyOptional({ enum: ALARM_SEVERITIES })
  @IsOptional()
  @IsIn(ALARM_SEVERITIES)
  severity?: AlarmSeverity;
}

/** Filters of `/alarms/`. */
export class AlarmQueryDto extends DeviceAlarmQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  device_id?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  shipment_id?: number;
}
