import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { TelemetryPointDto } from '../../telemetry/dto/telemetry-point.dto';
import { TELEMETRY_DEFAULT_PAGE_SIZE, TELEMETRY_MAX_PAGE_SIZE, TelemetryQueryDto } from '../../telemetry/dto/telemetry-query.dto';

/** Device telemetry's range, paging and `bucket` parameters, plus a device filter. */
export class TrackingQueryDto extends TelemetryQueryDto {
  // Declared again: class-validator would otherwise apply both ancestors' bounds (200 and 1000).
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: TELEMETRY_MAX_PAGE_SIZE, default: TELEMETRY_DEFAULT_PAGE_SIZE, description: 'Points (or buckets) per page.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(TELEMETRY_MAX_PAGE_SIZE)
  override limit?: number = undefined;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only this device (one that was attached to the shipment).' })
  @IsOptional()
  @IsUUID()
  device_id?: string;
}

export class TrackingPointDto extends TelemetryPointDto {
  @ApiProperty({ format: 'uuid' }) device_id: string;
}
