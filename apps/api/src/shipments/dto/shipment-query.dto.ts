import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length } from 'class-validator';
import { SHIPMENT_STATUSES, type ShipmentStatus } from '@app/domain';
import { PageQueryDto } from '../../common/paging';

export class ShipmentQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: SHIPMENT_STATUSES }) @IsOptional() @IsIn(SHIPMENT_STATUSES) status?: ShipmentStatus;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 100,
    description: 'Case-insensitive substring of the reference, the name, the receiver’s or carrier’s name, or the label of an attached device.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 100)
  search?: string;
}
