import { ApiProperty } from '@nestjs/swagger';
import type { AlertPreset } from '@app/database';
import { NullableString } from '../../common/catalogue/field-decorators';

const NullableNumber = (description: string): PropertyDecorator => ApiProperty({ type: Number, nullable: true, description });

export class AlertPresetDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'Vaccines 2–8 °C' }) name: string;
  @NullableString() description: string | null;
  @NullableNumber('°C') temperature_min: number | null;
  @NullableNumber('°C') temperature_max: number | null;
  @NullableNumber('% relative humidity') humidity_min: number | null;
  @NullableNumber('% relative humidity') humidity_max: number | null;
  @NullableNumber('lux') light_max: number | null;
  @NullableNumber('g') shock_max: number | null;
  @NullableNumber('%') battery_min: number | null;
  @ApiProperty({ minimum: 0, maximum: 1440 }) delay_minutes: number;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;

  static from(preset: AlertPreset): AlertPresetDto {
    return {
      id: preset.id,
      name: preset.name,
      description: preset.description,
      temperature_min: preset.temperatureMin,
      temperature_max: preset.temperatureMax,
      humidity_min: preset.humidityMin,
      humidity_max: preset.humidityMax,
      light_max: preset.lightMax,
      shock_max: preset.shockMax,
      battery_min: preset.batteryMin,
      delay_minutes: preset.delayMinutes,
      created_at: preset.createdAt.toISOString(),
      updated_at: preset.updatedAt.toISOString(),
    };
  }
}
