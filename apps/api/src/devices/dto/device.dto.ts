import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Length } from 'class-validator';
import { toSensors, toThresholds } from '@app/domain';
import type { DeviceRow } from '@app/domain';
import { DeviceSettingsDto } from './device-settings.dto';

/** The safe operational view: no SIM/IMEI data, firmware keys, approval workflow or costs. */
export class DeviceDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'CCT-4F2A9C01D3' }) serial_number: string;
  @ApiProperty({ example: 'ColdTrack T4' }) model: string;
  @ApiProperty({ type: String, nullable: true }) hardware_revision: string | null;
  @ApiProperty({ type: String, nullable: true, example: '4.2.0' }) firmware_version: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Customer-visible label.' }) label: string | null;
  @ApiProperty({ format: 'date-time', description: 'Start of the tenant’s ownership (the current lifecycle); earlier history is not visible.' })
  owned_since: string;
  @ApiProperty({ type: DeviceSettingsDto }) settings: DeviceSettingsDto;

  static from(row: DeviceRow): DeviceDto {
    return {
      id: row.id,
      serial_number: row.serial_number,
      model: row.model,
      hardware_revision: row.hardware_revision,
      firmware_version: row.firmware_version,
      label: row.label,
      owned_since: row.owned_since.toISOString(),
      settings: DeviceSettingsDto.from({
        measurement_interval_s: row.measurement_interval_s,
        transmission_interval_s: row.transmission_interval_s,
        sensors: toSensors(row.sensors),
        thresholds: toThresholds(row.thresholds),
        alert_preset_id: row.alert_preset_id,
      }),
    };
  }
}

/** Only the label; anything else is refused. */
export class UpdateDeviceLabelDto {
  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: 100, description: 'null clears the label.' })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  label?: string | null;
}
