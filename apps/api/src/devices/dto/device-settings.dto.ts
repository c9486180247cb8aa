import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsNumber, IsOptional, IsUUID, Max, Min, ValidateNested } from 'class-validator';
import { INTERVAL_BOUNDS, THRESHOLD_BOUNDS, type Sensors, type Thresholds } from '@app/domain';
import { OptionalNotNull } from '../../common/validators';

export class SensorsDto {
  @ApiProperty() temperature: boolean;
  @ApiProperty() humidity: boolean;
  @ApiProperty() light: boolean;
  @ApiProperty() shock: boolean;
  @ApiProperty() location: boolean;
}

const thresholdDoc = (name: keyof Thresholds, what: string) => ({
  type: Number,
  nullable: true,
  minimum: THRESHOLD_BOUNDS[name].min,
  maximum: THRESHOLD_BOUNDS[name].max,
  description: `${what} (${THRESHOLD_BOUNDS[name].unit}); null: not monitored by the device itself (the alert preset's value applies).`,
});

export class ThresholdsDto {
  @ApiProperty(thresholdDoc('temperature_min', 'Lowest acceptable temperature')) temperature_min: number | null;
  @ApiProperty(thresholdDoc('temperature_max', 'Highest acceptable temperature')) temperature_max: number | null;
  @ApiProperty(thresholdDoc('humidity_min', 'Lowest acceptable relative humidity')) humidity_min: number | null;
  @ApiProperty(thresholdDoc('humidity_max', 'Highest acceptable relative humidity')) humidity_max: number | null;
  @ApiProperty(thresholdDoc('light_max', 'Highest acceptable light level')) light_max: number | null;
  @ApiProperty(thresholdDoc('shock_max', 'Highest acceptable shock')) shock_max: number | null;
  @ApiProperty(thresholdDoc('battery_min', 'Battery level under which an alarm is raised')) battery_min: number | null;
  @ApiProperty({
    ...thresholdDoc('delay_minutes', 'How long a temperature, humidity or light excursion must last before an alarm is raised'),
    type: 'integer',
  })
  delay_minutes: number | null;
}

export class DeviceSettingsDto {
  @ApiProperty({ type: 'integer', minimum: INTERVAL_BOUNDS.measurement_interval_s.min, maximum: INTERVAL_BOUNDS.measurement_interval_s.max, description: 'Seconds between measurements.' })
  measurement_interval_s: number;
  @ApiProperty({ type: 'integer', minimum: INTERVAL_BOUNDS.transmission_interval_s.min, maximum: INTERVAL_BOUNDS.transmission_interval_s.max, description: 'Seconds between transmissions; at least the measurement interval.' })
  transmission_interval_s: number;
  @ApiProperty({ type: SensorsDto, description: 'Which sensors are in use; thresholds of an unused sensor are not evaluated.' })
  sensors: SensorsDto;
  @ApiProperty({ type: ThresholdsDto, description: 'The device’s own thresholds; where null, the alert preset’s apply.' })
  thresholds: ThresholdsDto;
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'Alert preset of the tenant supplying thresholds the device does not set itself.' })
  alert_preset_id: string | null;

  static from(settings: { measurement_interval_s: number; transmission_interval_s: number; sensors: Sensors; thresholds: Thresholds; alert_preset_id: string | null }): DeviceSettingsDto {
    return {
      measurement_interval_s: settings.measurement_interval_s,
      transmission_interval_s: settings.transmission_interval_s,
      sensors: { ...settings.sensors },
      thresholds: { ...settings.thresholds },
      alert_preset_id: settings.alert_preset_id,
    };
  }
}

export class UpdateSensorsDto {
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() temperature?: boolean;
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() humidity?: boolean;
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() light?: boolean;
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() shock?: boolean;
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() location?: boolean;
}

function Threshold(name: keyof Thresholds, what: string, integer = false): PropertyDecorator {
  const { min, max } = THRESHOLD_BOUNDS[name];
  const decorators: PropertyDecorator[] = [
    ApiPropertyOptional({ ...thresholdDoc(name, what), ...(integer ? { type: 'integer' } : {}) }),
    IsOptional(),
    integer ? IsInt() : IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(min),
    Max(max),
  ];
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

/** Fields sent change; null clears a threshold. */
export class UpdateThresholdsDto {
  @Threshold('temperature_min', 'Lowest acceptable temperature') temperature_min?: number | null;
  @Threshold('temperature_max', 'Highest acceptable temperature') temperature_max?: number | null;
  @Threshold('humidity_min', 'Lowest acceptable relative humidity') humidity_min?: number | null;
  @Threshold('humidity_max', 'Highest acceptable relative humidity') humidity_max?: number | null;
  @Threshold('light_max', 'Highest acceptable light level') light_max?: number | null;
  @Threshold('shock_max', 'Highest acceptable shock') shock_max?: number | null;
  @Threshold('battery_min', 'Battery level under which an alarm is raised') battery_min?: number | null;
  @Threshold('delay_minutes', 'How long an excursion must last before an alarm is raised', true) delay_minutes?: number | null;
}

/**
 * The settings allow-list. Only the fields sent change, nested objects included
 * (`{"thresholds": {"temperature_max": 8}}` leaves the other thresholds as they are).
 */
export class UpdateDeviceSettingsDto {
  @ApiPropertyOptional({ type: 'integer', minimum: INTERVAL_BOUNDS.measurement_interval_s.min, maximum: INTERVAL_BOUNDS.measurement_interval_s.max })
  @OptionalNotNull()
  @IsInt()
  @Min(INTERVAL_BOUNDS.measurement_interval_s.min)
  @Max(INTERVAL_BOUNDS.measurement_interval_s.max)
  measurement_interval_s?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: INTERVAL_BOUNDS.transmission_interval_s.min, maximum: INTERVAL_BOUNDS.transmission_interval_s.max })
  @OptionalNotNull()
  @IsInt()
  @Min(INTERVAL_BOUNDS.transmission_interval_s.min)
  @Max(INTERVAL_BOUNDS.transmission_interval_s.max)
  transmission_interval_s?: number;

  @ApiPropertyOptional({ type: UpdateSensorsDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => UpdateSensorsDto)
  sensors?: UpdateSensorsDto;

  @ApiPropertyOptional({ type: UpdateThresholdsDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => UpdateThresholdsDto)
  thresholds?: UpdateThresholdsDto;

  @ApiPropertyOptional({ type: String, format: 'uuid', nullable: true, description: 'An alert preset of the tenant; null detaches it.' })
  @IsOptional()
  @IsUUID()
  alert_preset_id?: string | null;
}
