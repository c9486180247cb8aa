import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { BUCKET_NAMES, type BucketName } from '@app/domain';
import { PageQueryDto } from '../../common/paging';
import { OptionalZonedTimestamp } from '../../common/validators';

export const TELEMETRY_DEFAULT_PAGE_SIZE = 100;
export const TELEMETRY_MAX_PAGE_SIZE = 1000;

export class TelemetryQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: TELEMETRY_MAX_PAGE_SIZE,
    default: TELEMETRY_DEFAULT_PAGE_SIZE,
    description: 'Points (or buckets) per page.',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(TELEMETRY_MAX_PAGE_SIZE)
  override limit?: number = undefined;

  @OptionalZonedTimestamp('Start of the range, inclusive. Default: 24 hours before `to`.') from?: string;
  @OptionalZonedTimestamp('End of the range, exclusive. Default: now.') to?: string;

  @ApiPropertyOptional({
    enum: BUCKET_NAMES,
    description: 'Downsample: one row per bucket (aligned to UTC) with the count of points and min/avg/max of each measurement.',
  })
  @IsOptional()
  @IsIn(BUCKET_NAMES)
  bucket?: BucketName;
}
