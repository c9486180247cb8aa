import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsISO8601, IsOptional, Matches, Max, Min } from 'class-validator';
import { PageQueryDto } from '../../common/paging';
import { BUCKET_NAMES, type BucketName } from '../telemetry-buckets';

export const TELEMETRY_DEFAULT_PAGE_SIZE = 100;
export const TELEMETRY_MAX_PAGE_SIZE = 1000;

/** ISO 8601 with an explicit zone (`Z` or an offset): a local time would be ambiguous. */
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/i;

function Timestamp(description: string): PropertyDecorator {
  const decorators: PropertyDecorator[] = [
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    IsOptional(),
    IsISO8601({ strict: true }),
    Matches(ZONED, { message: '$property must be an ISO 8601 timestamp with a time zone' }),
  ];
  return (target, key) => decorators.forEach((decorate) => decorate(target, key));
}

export class TelemetryQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
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
