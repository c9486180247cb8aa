import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '../../common/paging';
import { OptionalZonedTimestamp } from '../../common/validators';

/** Filters of `/audit-events/` (each optional; together they narrow). */
export class AuditEventQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only records about this kind of resource (`device`, `shipment`, `webhook_endpoint`, …).', maxLength: 64, pattern: '^[a-z_]+$' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @Matches(/^[a-z_]+$/, { message: '$property must be a resource type such as device or webhook_endpoint' })
  resource_type?: string;

  @ApiPropertyOptional({ description: 'Only records about the resource with this id.', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  resource_id?: string;

  @ApiPropertyOptional({ description: 'Only changes made by this actor (`actor.id`: an API credential id, a panel user id or a CLI operator).', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  actor?: string;

  @ApiPropertyOptional({ description: 'Only records of this action, exactly as listed (`PATCH /devices/{device_id}/settings/`).', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  action?: string;

  @OptionalZonedTimestamp('Only records at or after this instant.') from?: string;
  @OptionalZonedTimestamp('Only records before this instant.') until?: string;
}
