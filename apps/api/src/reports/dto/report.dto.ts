import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../common/paging';
import { MAX_INT_ID } from '../../common/params';

export class ShipmentSubjectDto {
  @ApiProperty({ enum: ['shipment'] }) type: 'shipment';
  @ApiProperty({ type: 'integer', minimum: 1 }) id: number;
}

export class DeviceSubjectDto {
  @ApiProperty({ enum: ['device'] }) type: 'device';
  @ApiProperty({ format: 'uuid' }) id: string;
}

/** Metadata of a generated file; the bytes come from `…/download/`. */
export class ReportDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ example: 'shipment-147-report.pdf' }) name: string;
  @ApiProperty({ enum: ['application/pdf', 'text/csv'] }) content_type: string;
  @ApiProperty({ type: 'integer', minimum: 0 }) size_bytes: number;
  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the file, hex.' }) sha256: string;
  @ApiProperty({ format: 'date-time', description: 'Start of the period the report covers.' }) period_from: string;
  @ApiProperty({ format: 'date-time', description: 'End of the period (exclusive).' }) period_to: string;
  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(ShipmentSubjectDto) }, { $ref: getSchemaPath(DeviceSubjectDto) }],
    discriminator: { propertyName: 'type', mapping: { shipment: getSchemaPath(ShipmentSubjectDto), device: getSchemaPath(DeviceSubjectDto) } },
    description: 'What the report is about: a shipment (integer id) or a device (UUID).',
  })
  subject: ShipmentSubjectDto | DeviceSubjectDto;
  @ApiProperty({ format: 'date-time' }) generated_at: string;
}

export class ReportQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['shipment', 'device'] }) @IsOptional() @IsIn(['shipment', 'device']) subject_type?: 'shipment' | 'device';

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Reports of this shipment.' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  shipment_id?: number;

  @ApiPropertyOptional({ format: 'uuid', description: 'Reports of this device.' }) @IsOptional() @IsUUID() device_id?: string;
}
