import { applyDecorators, Get, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { PageLinksDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { TelemetryBucketDto, TelemetryPointDto } from './dto/telemetry-point.dto';
import { TELEMETRY_DEFAULT_PAGE_SIZE, TelemetryQueryDto } from './dto/telemetry-query.dto';
import { BUCKET_WIDTHS, TelemetryService } from '@app/domain';
import { presentBucket, presentPackedPoints } from './telemetry.presenter';
import { SerializedJson } from '../common/json-reply.adapter';
import { type AccountId, BY_TIME } from '@app/vocabulary';

/** `{data, links}` whose items are raw points, or buckets when `bucket` is given. */
const ApiTelemetryPage = (): MethodDecorator =>
  applyDecorators(
    ApiExtraModels(TelemetryPointDto, TelemetryBucketDto, PageLinksDto),
    ApiOkResponse({
      description: 'A page of points in time order; with `bucket`, a page of consecutive buckets (empty ones included, count 0).',
      schema: {
        type: 'object',
        required: ['data', 'links'],
        properties: {
          data: { type: 'array', items: { anyOf: [{ $ref: getSchemaPath(TelemetryPointDto) }, { $ref: getSchemaPath(TelemetryBucketDto) }] } },
          links: { $ref: getSchemaPath(PageLinksDto) },
        },
      },
    }),
  );

@PublicApiController('devices', 'Telemetry')
export class TelemetryController {
  constructor(
    private readonly telemetry: TelemetryService,
    private readonly paginator: Paginator,
  ) {}

  @Get(':device_id/telemetry')
  @Scopes('telemetry:read')
  @ApiOperation({
    summary: 'Measurements of the device in [from, to)',
    description:
      'Only points of the tenant’s ownership of the device. `from`/`to` are ISO 8601 with a zone; the default range is the last 24 hours; ' +
      'a range longer than the configured maximum (TELEMETRY_MAX_RANGE_DAYS, default 31 days) is a 400 `range_too_large`. ' +
      `Page size: \`limit\` up to 1000 (default ${TELEMETRY_DEFAULT_PAGE_SIZE}). ` +
      '`bucket` (1m, 5m, 15m, 1h, 6h, 1d) downsamples: per bucket the number of points and min/avg/max of each measurement (location is not aggregated).',
  })
  @ApiTelemetryPage()
  @ApiResponse(problemResponse(404, 'No such device in this account (`not_found`).'))
  async list(
    @Req() request: AuthenticatedRequest,
    @UuidParam('device_id') deviceId: string,
    @Query() query: TelemetryQueryDto,
    @CurrentAccount() accountId: AccountId,
  ): Promise<Page<TelemetryBucketDto> | SerializedJson> {
    const scope = await this.telemetry.scope(accountId, deviceId);
    const page = this.paginator.start(request, query, BY_TIME, TELEMETRY_DEFAULT_PAGE_SIZE);
    const bucket = query.bucket;
    if (bucket) {
      const rows = await this.telemetry.buckets(scope, { ...query, bucket }, page);
      return this.paginator.finish(request, page, rows, (b) => b.bucket_start, presentBucket(BUCKET_WIDTHS[bucket]));
    }
    // Points: the page comes packed from PostgreSQL and is written as JSON text directly (no row
    // object per point, no second serialization); same body as finish() + presentPoint.
    const points = presentPackedPoints(await this.telemetry.packedPoints(scope, query, page), page.limit);
    const next = points.more && points.last ? this.paginator.nextLink(request, page, points.last) : null;
    return new SerializedJson(`{"data":${points.json},"links":{"next":${JSON.stringify(next)}}}`);
  }
}
