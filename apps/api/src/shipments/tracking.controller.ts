import { applyDecorators, Get, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { PageLinksDto, type Page } from '../common/paging';
import { IntParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { TelemetryBucketDto } from '../telemetry/dto/telemetry-point.dto';
import { TELEMETRY_DEFAULT_PAGE_SIZE } from '../telemetry/dto/telemetry-query.dto';
import { BUCKET_WIDTHS } from '@app/domain';
import { presentBucket, presentPoint } from '../telemetry/telemetry.presenter';
import { TrackingPointDto, TrackingQueryDto } from './dto/tracking.dto';
import { SHIPMENT_ID, SHIPMENT_NOT_FOUND } from './shipment-docs';
import { TrackingService, type TrackedPointRow } from '@app/domain';
import { type AccountId, BY_TIME, BY_TIME_AND_UUID } from '@app/vocabulary';

const ApiTrackingPage = (): MethodDecorator =>
  applyDecorators(
    ApiExtraModels(TrackingPointDto, TelemetryBucketDto, PageLinksDto),
    ApiOkResponse({
      description: 'A page of points ordered by (recorded_at, device_id); with `bucket`, a page of consecutive buckets over all tracked points (empty ones included, count 0).',
      schema: {
        type: 'object',
        required: ['data', 'links'],
        properties: {
          data: { type: 'array', items: { anyOf: [{ $ref: getSchemaPath(TrackingPointDto) }, { $ref: getSchemaPath(TelemetryBucketDto) }] } },
          links: { $ref: getSchemaPath(PageLinksDto) },
        },
      },
    }),
  );

const presentTrackedPoint = (row: TrackedPointRow): TrackingPointDto => ({ device_id: row.device_id, ...presentPoint(row) });

@PublicApiController('shipments', 'Shipments')
export class TrackingController {
  constructor(
    private readonly tracking: TrackingService,
    private readonly paginator: Paginator,
  ) {}

  @Get(':shipment_id/tracking')
  @Scopes('shipments:tracking:read')
  @SHIPMENT_ID
  @ApiOperation({
    summary: 'Telemetry of the shipment’s devices within the shipment window',
    description:
      'Each device’s points only while it was attached, and only inside [start of the shipment, completion or now): a completed shipment’s window is frozen, so points recorded after completion never appear, however late they arrive. ' +
      '`from`/`to` narrow the window; `device_id` keeps one device. The window is bounded by the shipment, so the device telemetry’s maximum range (TELEMETRY_MAX_RANGE_DAYS) does not apply. ' +
      `Page size: \`limit\` up to 1000 (default ${TELEMETRY_DEFAULT_PAGE_SIZE}). ` +
      '`bucket` (1m, 5m, 15m, 1h, 6h, 1d) downsamples exactly like device telemetry: per bucket the number of points and min/avg/max of each measurement, over all the devices (or the one chosen).',
  })
  @ApiTrackingPage()
  @ApiResponse(problemResponse(400, 'Invalid parameter (`validation_failed`, `invalid_cursor`); `device_id` of a device that was never attached (`validation_failed` with the field error code `not_in_shipment` in `errors[]`).'))
  @ApiResponse(SHIPMENT_NOT_FOUND)
  async list(
    @Req() request: AuthenticatedRequest,
    @IntParam('shipment_id') shipmentId: number,
    @Query() query: TrackingQueryDto,
    @CurrentAccount() accountId: AccountId,
  ): Promise<Page<TrackingPointDto | TelemetryBucketDto>> {
    const scope = await this.tracking.scope(accountId, shipmentId, query);
    const bucket = query.bucket;
    if (bucket) {
      const page = this.paginator.start(request, query, BY_TIME, TELEMETRY_DEFAULT_PAGE_SIZE);
      const rows = await this.tracking.buckets(scope, bucket, page);
      return this.paginator.finish(request, page, rows, (b) => b.bucket_start, presentBucket(BUCKET_WIDTHS[bucket]));
    }
    const page = this.paginator.start(request, query, BY_TIME_AND_UUID, TELEMETRY_DEFAULT_PAGE_SIZE);
    const rows = await this.tracking.points(scope, page);
    return this.paginator.finish(request, page, rows, (p) => ({ at: p.recorded_at.toISOString(), id: p.device_id }), presentTrackedPoint);
  }
}
