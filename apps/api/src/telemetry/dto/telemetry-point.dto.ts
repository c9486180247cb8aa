import { ApiProperty } from '@nestjs/swagger';

export class TelemetryPointDto {
  @ApiProperty({ format: 'date-time', description: 'When the device measured (millisecond precision).' }) recorded_at: string;
  @ApiProperty({ type: Number, nullable: true, description: '°C' }) temperature: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Relative humidity, %' }) humidity: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'lux' }) light: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'g' }) shock: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Battery level, %' }) battery: number | null;
  @ApiProperty({ type: Number, nullable: true }) latitude: number | null;
  @ApiProperty({ type: Number, nullable: true }) longitude: number | null;
}

export class MeasurementStatsDto {
  @ApiProperty() min: number;
  @ApiProperty({ description: 'Rounded to 3 decimals.' }) avg: number;
  @ApiProperty() max: number;
}

export class TelemetryBucketDto {
  @ApiProperty({ format: 'date-time' }) bucket_start: string;
  @ApiProperty({ format: 'date-time', description: 'Exclusive.' }) bucket_end: string;
  @ApiProperty({ type: 'integer', description: 'Points in the bucket (0: no data).' }) count: number;
  @ApiProperty({ type: MeasurementStatsDto, nullable: true, description: '°C; null when the bucket has no value.' }) temperature: MeasurementStatsDto | null;
  @ApiProperty({ type: MeasurementStatsDto, nullable: true }) humidity: MeasurementStatsDto | null;
  @ApiProperty({ type: MeasurementStatsDto, nullable: true }) light: MeasurementStatsDto | null;
  @ApiProperty({ type: MeasurementStatsDto, nullable: true }) shock: MeasurementStatsDto | null;
  @ApiProperty({ type: MeasurementStatsDto, nullable: true }) battery: MeasurementStatsDto | null;
}
