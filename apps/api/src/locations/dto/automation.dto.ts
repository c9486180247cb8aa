import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '../../common/validators';

export const GEOFENCE_ALARM_SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
type Severity = (typeof GEOFENCE_ALARM_SEVERITIES)[number];

/** Field initialisers are the defaults: a trigger sent without a field keeps it off. */
export class ExitAutomationDto {
  @ApiPropertyOptional({ default: false, description: 'Record a geofence event for the shipment of the device.' })
  @OptionalNotNull()
  @IsBoolean()
  record_event: boolean = false;

  @ApiPropertyOptional({ default: false, description: 'Raise a `GEOFENCE` alarm (source `GEOFENCE`).' })
  @OptionalNotNull()
  @IsBoolean()
  raise_alarm: boolean = false;

  @ApiPropertyOptional({ enum: GEOFENCE_ALARM_SEVERITIES, default: 'WARNING', description: 'Severity of the raised alarm.' })
  @OptionalNotNull()
  @IsIn(GEOFENCE_ALARM_SEVERITIES)
  alarm_severity: Severity = 'WARNING';
}

/** Entry can also mark arrival and complete the shipment; leaving a place completes nothing. */
export class EntryAutomationDto extends ExitAutomationDto {
  @ApiPropertyOptional({ default: false, description: 'When this location is the shipment’s destination: mark the shipment as arrived.' })
  @OptionalNotNull()
  @IsBoolean()
  mark_arrival: boolean = false;

  @ApiPropertyOptional({ default: false, description: 'When this location is the shipment’s destination: complete the shipment.' })
  @OptionalNotNull()
  @IsBoolean()
  complete_shipment: boolean = false;
}

/** What happens when a tracked device enters or leaves the location's geofence. */
export class AutomationDto {
  @ApiPropertyOptional({ type: EntryAutomationDto, description: 'When a tracked device enters the geofence.' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => EntryAutomationDto)
  on_entry: EntryAutomationDto = new EntryAutomationDto();

  @ApiPropertyOptional({ type: ExitAutomationDto, description: 'When a tracked device leaves the geofence.' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ExitAutomationDto)
  on_exit: ExitAutomationDto = new ExitAutomationDto();
}
