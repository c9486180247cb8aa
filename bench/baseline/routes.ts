import type { AppConfig } from '@app/config';
import type { Request } from 'express';
import { NotFoundError } from '@app/domain';
import { Paginator } from '../../apps/api/src/common/paginator';
import { DEFAULT_PAGE_SIZE } from '../../apps/api/src/common/paging';
import { DevicesService } from '@app/domain';
import { DevicesRepository } from '@app/domain/devices/devices.repository';
import { TelemetryRepository } from '@app/domain/telemetry/telemetry.repository';
import { DeviceDto } from '../../apps/api/src/devices/dto/device.dto';
import { TELEMETRY_DEFAULT_PAGE_SIZE, type TelemetryQueryDto } from '../../apps/api/src/telemetry/dto/telemetry-query.dto';
import { BUCKET_WIDTHS, TelemetryService, type BucketName } from '@app/domain';
import { presentBucket, presentPackedPoints } from '../../apps/api/src/telemetry/telemetry.presenter';
import { SerializedJson } from '../../apps/api/src/common/json-reply.adapter';
import { shipmentDetailAdapter } from '../adapters/shipments.adapter';
import type { DataSource } from 'typeorm';
import { BY_TIME, BY_UUID, type AccountId } from '@app/vocabulary';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a handler sees: the path and the query as Express would parse them (plain strings). */
export interface BaselineRequest {
  path: string;
  query: Record<string, string>;
}

const asExpress = (request: BaselineRequest): Request => request as unknown as Request;

/**
 * The handlers, built from the project's own repositories, services, paginator and presenters
 * over the bare pool: same SQL, same cursors, same JSON. What the baseline leaves out is the
 * framework: Nest routing, guards, pipes (class-validator/class-transformer), interceptors,
 * Express middleware (request id, pino-http, metrics).
 */
export class BaselineRoutes {
  private readonly devicesRepository: DevicesRepository;
  private readonly telemetry: TelemetryService;
  private readonly paginator: Paginator;

  constructor(
    config: AppConfig,
    private readonly sql: DataSource,
  ) {
    const dataSource = sql as never;
    this.devicesRepository = new DevicesRepository(dataSource);
    const devices = new DevicesService(this.devicesRepository, dataSource);
    this.telemetry = new TelemetryService(devices, new TelemetryRepository(dataSource), config);
    this.paginator = new Paginator(config);
  }

  async devices(request: BaselineRequest, accountId: AccountId): Promise<unknown> {
    const query = { limit: request.query.limit ? Number(request.query.limit) : undefined, cursor: request.query.cursor };
    const page = this.paginator.start(asExpress(request), query, BY_UUID, DEFAULT_PAGE_SIZE);
    const rows = await this.devicesRepository.list(accountId, page);
    return this.paginator.finish(asExpress(request), page, rows, (d) => d.id, DeviceDto.from);
  }

  async telemetryPage(request: BaselineRequest, accountId: AccountId, deviceId: string): Promise<unknown> {
    if (!UUID.test(deviceId)) throw new NotFoundError();
    const q = request.query;
    const query: TelemetryQueryDto = { limit: q.limit ? Number(q.limit) : undefined, cursor: q.cursor, from: q.from, to: q.to, bucket: q.bucket as BucketName | undefined };
    const scope = await this.telemetry.scope(accountId, deviceId);
    const page = this.paginator.start(asExpress(request), query, BY_TIME, TELEMETRY_DEFAULT_PAGE_SIZE);
    const bucket = query.bucket;
    if (bucket) {
      const rows = await this.telemetry.buckets(scope, { ...query, bucket }, page);
      return this.paginator.finish(asExpress(request), page, rows, (b) => b.bucket_start, presentBucket(BUCKET_WIDTHS[bucket]));
    }
    // The project's own packed page and presenter (issue 28), written as the same JSON text.
    const points = presentPackedPoints(await this.telemetry.packedPoints(scope, query, page), page.limit);
    const next = points.more && points.last ? this.paginator.nextLink(asExpress(request), page, points.last) : null;
    return new SerializedJson(`{"data":${points.json},"links":{"next":${JSON.stringify(next)}}}`);
  }

  async shipment(accountId: AccountId, id: string): Promise<unknown> {
    const adapter = shipmentDetailAdapter();
    if (!adapter) throw new Error('shipment detail adapter not wired (bench/adapters/shipments.adapter.ts)');
    const shipmentId = Number(id);
    const body = Number.isSafeInteger(shipmentId) ? await adapter.detail(this.sql, accountId, shipmentId) : null;
    if (body === null || body === undefined) throw new NotFoundError();
    return body;
  }
}
