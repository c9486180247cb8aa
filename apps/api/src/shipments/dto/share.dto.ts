import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsISO8601, Matches, Max, Min } from 'class-validator';
import { OptionalNotNull } from '../../common/validators';
import { IsBoundedTimestamp } from '../../common/hostile-input';
import { SHARE_LIMITS } from '@app/domain';
import { ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';

/** PUT: the link's lifetime (exactly one of `expires_at`, `expires_in_hours`) and its view limit. */
export class PutShareDto {
  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'When the link stops working: 1 hour to 90 days from now.' })
  @OptionalNotNull()
  @IsISO8601({ strict: true })
  @Matches(ZONED_TIMESTAMP_PATTERN, { message: '$property must be an ISO 8601 timestamp with a time zone' })
  @IsBoundedTimestamp()
  expires_at?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: SHARE_LIMITS.minHours, maximum: SHARE_LIMITS.maxHours, description: 'Alternatively: hours from now.' })
  @OptionalNotNull()
  @IsInt()
  @Min(SHARE_LIMITS.minHours)
  @Max(SHARE_LIMITS.maxHours)
  expires_in_hours?: number;

  @ApiProperty({ type: 'integer', minimum: SHARE_LIMITS.minViews, maximum: SHARE_LIMITS.maxViews, description: 'Page views the link allows.' })
  @IsInt()
  @Min(SHARE_LIMITS.minViews)
  @Max(SHARE_LIMITS.maxViews)
  max_views: number;
}

export class ShareDto {
  @ApiProperty({ description: 'The link works now: created, not revoked, not expired, views left.' }) enabled: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'uri',
    description:
      'The public tracking page, while the link works (`enabled`); null otherwise. The same URL on every GET until a refresh (PUT) replaces it or a revocation ends it. Null as well for a link created before links were derivable, or after SECRETS_KEY was rotated: refresh to get one.',
    example: 'https://api.example.com/track/3q2-7wEjYk8nJ0sGm9bV_1xRr5uTzQpLhA4cDf6eKoI',
  })
  url: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) max_views: number | null;
  @ApiProperty({ type: 'integer', description: 'Views counted since the link was created or last refreshed.' }) view_count: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When the current link was created (refreshing sets it again).' })
  created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) revoked_at: string | null;
}
