import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsInt, IsNumber, IsOptional, Max, Min } from 'class-validator';
import { OptionalText, RequiredText } from '../../common/catalogue/field-decorators';
import { OptionalNotNull } from '../../common/validators';

/** Physical bounds of each measurement; a threshold outside them could never trigger. */
export const THRESHOLD_BOUNDS = {
  temperature: { min: -100, max: 100, unit: '°C' },
  humidity: { min: 0, max: 100, unit: '% relative humidity' },
  light: { min: 0, max: 200_000, unit: 'lux' },
  shock: { min: 0, max: 1000, unit: 'g' },
  battery: { min: 0, max: 100, unit: '%' },
} as const;

export const MAX_DELAY_MINUTES = 1440;

const Threshold = (measure: keyof typeof THRESHOLD_BOUNDS, description: string, example: number): PropertyDecorator => {
  const { min, max, unit } = THRESHOLD_BOUNDS[measure];
  return applyDecorators(
    ApiPropertyOptional({ type: Number, nullable: true, minimum: min, maximum: max, description: `${description} (${unit}); null: not monitored.`, example }),
    IsOptional(),
    IsNumber({ allowNaN: false, allowInfinity: false }),
    Min(min),
    Max(max),
  );
};

/** The writable fields of an alert preset (POST and PUT). Each threshold is optional; min < max. */
export class CreateAlertPresetDto {
  @RequiredText(200, 'Vaccines 2–8 °C') name: string;
  @OptionalText(1000, 'EU GDP range for vaccines') description?: string | null;
  @Threshold('temperature', 'Alarm below this temperature', 2) temperature_min?: number | null;
  @Threshold('temperature', 'Alarm above this temperature', 8) temperature_max?: number | null;
  @Threshold('humidity', 'Alarm below this humidity', 20) humidity_min?: number | null;
  @Threshold('humidity', 'Alarm above this humidity', 80) humidity_max?: number | null;
  @Threshold('light', 'Alarm above this light level (package opened)', 50) light_max?: number | null;
  @Threshold('shock', 'Alarm above this shock', 8) shock_max?: number | null;
  @Threshold('battery', 'Alarm below this battery level', 15) battery_min?: number | null;

  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_DELAY_MINUTES,
    default: 0,
    description: 'How long a condition must last before it raises an alarm, in minutes.',
    example: 15,
  })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_DELAY_MINUTES)
  delay_minutes?: number;
}

/** PATCH: any subset of the writable fields; required fields cannot be set to null. */
export class UpdateAlertPresetDto extends PartialType(CreateAlertPresetDto, { skipNullProperties: false }) {}
