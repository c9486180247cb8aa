import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { TelemetryPointDto } from '../../telemetry/dto/telemetry-point.dto';
import { TelemetryQueryDto } from '../../telemetry/dto/telemetry-query.dto';

/** Device telemetry's range, paging and `bucket` parameters, plus a device filter. */
export class TrackingQueryDto extends TelemetryQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only this device (one that was attached to the shipment).' })
  @IsOptional()
  @IsUUID()
  device_id?: string;
}

export class TrackingPointDto extends TelemetryPointDto {
  @ApiProperty({ format: 'uuid' }) device_id: string;
}
