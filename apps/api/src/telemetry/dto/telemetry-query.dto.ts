import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, Matches, Max, Min } from 'class-validator';
import { IsBoundedTimestamp } from '../../common/hostile-input';
import { BUCKET_NAMES, type BucketName } from '@app/domain';
import { PageQueryDto } from '../../common/paging';
import { ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';

export const TELEMETRY_DEFAULT_PAGE_SIZE = 100;
export const TELEMETRY_MAX_PAGE_SIZE = 1000;


function Timestamp(description: string): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    IsOptional(),
    IsISO8601({ strict: true }),
    Matches(ZONED_TIMESTAMP_PATTERN, { message: '$property must be an ISO 8601 timestamp with a time zone' }),
    IsBoundedTimestamp(),
  ];
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

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

  @Timestamp('Start of the range, inclusive. Default: 24 hours before `to`.') from?: string;
  @Timestamp('End of the range, exclusive. Default: now.') to?: string;

  @ApiPropertyOptional({
    enum: BUCKET_NAMES,
    description: 'Downsample: one row per bucket (aligned to UTC) with the count of points and min/avg/max of each measurement.',
  })
  @IsOptional()
  @IsIn(BUCKET_NAMES)
  bucket?: BucketName;
}
