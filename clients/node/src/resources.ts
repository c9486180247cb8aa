import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { PassThrough, Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ColdchainError, TimeoutError } from './errors';
import type { TelemetryBucket, TelemetryPoint } from './generated/models';
import type { OperationId } from './generated/operations';
import { type Page, Paginator } from './paging';
import type { PathParam, Transport } from './transport';
import type { CreateOptions, PageItem, QueryParams, RequestBody, RequestOptions, ResponseBody, ResponseInfo, WithResponse } from './types';

type Id = string;

/** Shared plumbing of the resource groups. */
abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  protected call<O extends OperationId>(
    operationId: O,
    pathParams: readonly PathParam[],
    parts: { query?: object; body?: unknown },
    options?: CreateOptions,
  ): Promise<WithResponse<ResponseBody<O>>> {
    return this.transport.call<ResponseBody<O>>({ operationId, pathParams, query: parts.query as Record<string, unknown>, body: parts.body, options });
  }

  /** A 204 operation: resolves to nothing. */
  protected async noContent<O extends OperationId>(operationId: O, pathParams: readonly PathParam[], options?: RequestOptions): Promise<void> {
    await this.transport.call<void>({ operationId, pathParams, options });
  }

  protected paginate<O extends OperationId>(operationId: O, pathParams: readonly PathParam[], query: object | undefined, options?: RequestOptions): Paginator<PageItem<O>> {
    return new Paginator<PageItem<O>>((nextUrl) =>
      this.transport.call<Page<PageItem<O>>>({ operationId, pathParams, query: query as Record<string, unknown>, options, nextUrl }),
    );
  }
}

// ------------------------------------------------------------------------------------ meta

export class MetaResource extends Resource {
  /** GET / — the API index (links to every collection, the schema and the docs). */
  index(options?: RequestOptions): Promise<WithResponse<ResponseBody<'ApiIndexController_index'>>> {
    return this.call('ApiIndexController_index', [], {}, options);
  }

  /** GET /schema/ — the OpenAPI description this client was generated from (JSON). */
  schema(options?: RequestOptions): Promise<WithResponse<ResponseBody<'SchemaController_serve'>>> {
    return this.call('SchemaController_serve', [], {}, options);
  }
}

export class OAuthResource extends Resource {
  /**
   * POST /oauth/token/ — exchanges the client credentials for a new access token (and caches it).
   * The client does this by itself on first use; call it only to inspect the granted scopes.
   */
  token(options?: Pick<RequestOptions, 'signal'>): Promise<ResponseBody<'TokenController_token'>> {
    return this.transport.exchangeToken(options?.signal) as Promise<ResponseBody<'TokenController_token'>>;
  }
}

// ------------------------------------------------------------------------------------ accounts

export class AccountsResource extends Resource {
  /** GET /accounts/ — the active customer accounts on the credential's allow-list. */
  list(query?: QueryParams<'AccountsController_list'>, options?: RequestOptions): Paginator<PageItem<'AccountsController_list'>> {
    return this.paginate('AccountsController_list', [], query, options);
  }

  /** GET /accounts/{account_id}/ */
  get(accountId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'AccountsController_get'>>> {
    return this.call('AccountsController_get', [accountId], {}, options);
  }

  /** PATCH /accounts/{account_id}/ — contact and legal profile fields. */
  update(accountId: Id, body: RequestBody<'AccountsController_update'>, options?: RequestOptions): Promise<WithResponse<ResponseBody<'AccountsController_update'>>> {
    return this.call('AccountsController_update', [accountId], { body }, options);
  }
}

// ------------------------------------------------------------------------------------ catalogue

/** The catalogue families: the same six operations each. */
export type CatalogueFamily = 'Locations' | 'Carriers' | 'Receivers' | 'AlertPresets' | 'ShipmentTemplates';

/** Locations, carriers, receivers, alert presets and shipment templates. */
export class CatalogueResource<F extends CatalogueFamily> extends Resource {
  constructor(
    transport: Transport,
    private readonly family: F,
  ) {
    super(transport);
  }

  private op<S extends string>(suffix: S): `${F}Controller_${S}` & OperationId {
    return `${this.family}Controller_${suffix}` as `${F}Controller_${S}` & OperationId;
  }

  /** A page-following list of the records of the selected account. */
  list(query?: QueryParams<`${F}Controller_list`>, options?: RequestOptions): Paginator<PageItem<`${F}Controller_list`>> {
    return this.paginate(this.op('list'), [], query, options) as unknown as Paginator<PageItem<`${F}Controller_list`>>;
  }

  /** Creates a record (with an Idempotency-Key, generated unless given). */
  create(body: RequestBody<`${F}Controller_create`>, options?: CreateOptions): Promise<WithResponse<ResponseBody<`${F}Controller_create`>>> {
    return this.call(this.op('create'), [], { body }, options) as Promise<WithResponse<ResponseBody<`${F}Controller_create`>>>;
  }

  get(id: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<`${F}Controller_get`>>> {
    return this.call(this.op('get'), [id], {}, options) as Promise<WithResponse<ResponseBody<`${F}Controller_get`>>>;
  }

  /** PUT: replaces the writable fields (unknown fields are rejected). */
  replace(id: Id, body: RequestBody<`${F}Controller_replace`>, options?: RequestOptions): Promise<WithResponse<ResponseBody<`${F}Controller_replace`>>> {
    return this.call(this.op('replace'), [id], { body }, options) as Promise<WithResponse<ResponseBody<`${F}Controller_replace`>>>;
  }

  /** PATCH: changes only the fields sent. */
  update(id: Id, body: RequestBody<`${F}Controller_update`>, options?: RequestOptions): Promise<WithResponse<ResponseBody<`${F}Controller_update`>>> {
    return this.call(this.op('update'), [id], { body }, options) as Promise<WithResponse<ResponseBody<`${F}Controller_update`>>>;
  }

  /** DELETE (409 `in_use` while something still refers to the record). */
  delete(id: Id, options?: RequestOptions): Promise<void> {
    return this.noContent(this.op('remove'), [id], options);
  }
}

// ------------------------------------------------------------------------------------ devices & telemetry

export class DevicesResource extends Resource {
  /** GET /devices/ — approved, non-deleted devices of the account. */
  list(query?: QueryParams<'DevicesController_list'>, options?: RequestOptions): Paginator<PageItem<'DevicesController_list'>> {
    return this.paginate('DevicesController_list', [], query, options);
  }

  get(deviceId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'DevicesController_get'>>> {
    return this.call('DevicesController_get', [deviceId], {}, options);
  }

  /** PATCH /devices/{id}/label/ — the customer-visible label only. */
  updateLabel(deviceId: Id, body: RequestBody<'DevicesController_updateLabel'>, options?: RequestOptions): Promise<WithResponse<ResponseBody<'DevicesController_updateLabel'>>> {
    return this.call('DevicesController_updateLabel', [deviceId], { body }, options);
  }

  /** PATCH /devices/{id}/settings/ — intervals, sensors, thresholds, alert preset. */
  updateSettings(deviceId: Id, body: RequestBody<'DevicesController_updateSettings'>, options?: RequestOptions): Promise<WithResponse<ResponseBody<'DevicesController_updateSettings'>>> {
    return this.call('DevicesController_updateSettings', [deviceId], { body }, options);
  }

  /** GET /devices/{id}/status/ — connectivity, battery, last location. */
  status(deviceId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'DevicesController_status'>>> {
    return this.call('DevicesController_status', [deviceId], {}, options);
  }

  /** GET /devices/{id}/maintenance/ — maintenance, fault, repair and calibration records. */
  maintenance(deviceId: Id, query?: QueryParams<'DevicesController_maintenance'>, options?: RequestOptions): Paginator<PageItem<'DevicesController_maintenance'>> {
    return this.paginate('DevicesController_maintenance', [deviceId], query, options);
  }

  /** GET /devices/{id}/alarms/ — alarms of the device's current lifecycle. */
  alarms(deviceId: Id, query?: QueryParams<'DeviceAlarmsController_list'>, options?: RequestOptions): Paginator<PageItem<'DeviceAlarmsController_list'>> {
    return this.paginate('DeviceAlarmsController_list', [deviceId], query, options);
  }

  /** GET /devices/{id}/telemetry/ — the same as `client.telemetry.list`. */
  telemetry(deviceId: Id, query?: TelemetryQuery, options?: RequestOptions): Paginator<TelemetryPoint> {
    return this.paginate('TelemetryController_list', [deviceId], query, options) as Paginator<TelemetryPoint>;
  }
}

type RawTelemetryQuery = QueryParams<'TelemetryController_list'>;
/** `from`/`to` take ISO 8601 strings or Dates. */
export type TelemetryQuery = Omit<RawTelemetryQuery, 'from' | 'to' | 'bucket'> & { from?: string | Date; to?: string | Date };
export type TelemetryBucketQuery = TelemetryQuery & { bucket: NonNullable<RawTelemetryQuery['bucket']> };

export class TelemetryResource extends Resource {
  /** GET /devices/{id}/telemetry/ — points in [from, to) (default: the last 24 hours), in time order. */
  list(deviceId: Id, query?: TelemetryQuery, options?: RequestOptions): Paginator<TelemetryPoint> {
    return this.paginate('TelemetryController_list', [deviceId], query, options) as Paginator<TelemetryPoint>;
  }

  /** The same list downsampled: one row per UTC-aligned bucket (`1m` … `1d`) with count and min/avg/max. */
  buckets(deviceId: Id, query: TelemetryBucketQuery, options?: RequestOptions): Paginator<TelemetryBucket> {
    return this.paginate('TelemetryController_list', [deviceId], query, options) as Paginator<TelemetryBucket>;
  }
}

// ------------------------------------------------------------------------------------ shipments

export type ShipmentId = number | string;

export class ShipmentsResource extends Resource {
  /** GET /shipments/ — filters `status` (active|completed) and `search`. */
  list(query?: QueryParams<'ShipmentsController_list'>, options?: RequestOptions): Paginator<PageItem<'ShipmentsController_list'>> {
    return this.paginate('ShipmentsController_list', [], query, options);
  }

  /** POST /shipments/create/ — an immediately active shipment with one to five eligible devices. */
  create(body: RequestBody<'ShipmentsController_create'>, options?: CreateOptions): Promise<WithResponse<ResponseBody<'ShipmentsController_create'>>> {
    return this.call('ShipmentsController_create', [], { body }, options);
  }

  get(shipmentId: ShipmentId, options?: RequestOptions): Promise<WithResponse<ResponseBody<'ShipmentsController_get'>>> {
    return this.call('ShipmentsController_get', [shipmentId], {}, options);
  }

  /** PUT — route, planning, receiver, carrier, devices of an active shipment. */
  replace(shipmentId: ShipmentId, body: RequestBody<'ShipmentsController_replace'>, options?: RequestOptions): Promise<WithResponse<ResponseBody<'ShipmentsController_replace'>>> {
    return this.call('ShipmentsController_replace', [shipmentId], { body }, options);
  }

  /** DELETE — incomplete shipments only (409 `shipment_completed`). */
  delete(shipmentId: ShipmentId, options?: RequestOptions): Promise<void> {
    return this.noContent('ShipmentsController_remove', [shipmentId], options);
  }

  /** POST /complete/ — atomic completion; freezes the tracking window and generates the reports. */
  complete(shipmentId: ShipmentId, options?: RequestOptions): Promise<WithResponse<ResponseBody<'ShipmentsController_complete'>>> {
    return this.call('ShipmentsController_complete', [shipmentId], {}, options);
  }

  /** GET /share/ — sharing status: enabled, safe URL, expiry, view counts. */
  getShare(shipmentId: ShipmentId, options?: RequestOptions): Promise<WithResponse<ResponseBody<'ShareController_get'>>> {
    return this.call('ShareController_get', [shipmentId], {}, options);
  }

  /** PUT /share/ — creates or refreshes the share link (`max_views` and `expires_at` or `expires_in_hours`). */
  share(shipmentId: ShipmentId, body: RequestBody<'ShareController_put'>, options?: RequestOptions): Promise<WithResponse<ResponseBody<'ShareController_put'>>> {
    return this.call('ShareController_put', [shipmentId], { body }, options);
  }

  /** DELETE /share/ — revokes the link at once. */
  revokeShare(shipmentId: ShipmentId, options?: RequestOptions): Promise<void> {
    return this.noContent('ShareController_revoke', [shipmentId], options);
  }

  /** GET /tracking/ — telemetry of the attached devices within the shipment's window (`bucket` downsamples). */
  tracking(shipmentId: ShipmentId, query?: Omit<QueryParams<'TrackingController_list'>, 'from' | 'to'> & { from?: string | Date; to?: string | Date }, options?: RequestOptions): Paginator<PageItem<'TrackingController_list'>> {
    return this.paginate('TrackingController_list', [shipmentId], query, options);
  }
}

// ------------------------------------------------------------------------------ audit events

export class AuditEventsResource extends Resource {
  /** GET /audit-events/ — newest first; filters `resource_type`, `resource_id`, `actor`, `action`, `from`, `until`. */
  list(query?: QueryParams<'AuditEventsController_list'>, options?: RequestOptions): Paginator<PageItem<'AuditEventsController_list'>> {
    return this.paginate('AuditEventsController_list', [], query, options);
  }

  get(eventId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'AuditEventsController_get'>>> {
    return this.call('AuditEventsController_get', [eventId], {}, options);
  }
}

// ------------------------------------------------------------------------------------ alarms

export class AlarmsResource extends Resource {
  /** GET /alarms/ — filters `resolved`, `severity`, `device_id`, `shipment_id`. */
  list(query?: QueryParams<'AlarmsController_list'>, options?: RequestOptions): Paginator<PageItem<'AlarmsController_list'>> {
    return this.paginate('AlarmsController_list', [], query, options);
  }

  get(alarmId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'AlarmsController_get'>>> {
    return this.call('AlarmsController_get', [alarmId], {}, options);
  }

  /** PATCH — only `resolved` is accepted. */
  update(alarmId: Id, body: RequestBody<'AlarmsController_update'>, options?: RequestOptions): Promise<WithResponse<ResponseBody<'AlarmsController_update'>>> {
    return this.call('AlarmsController_update', [alarmId], { body }, options);
  }

  /** Marks the alarm resolved (a repeat is a no-op). */
  resolve(alarmId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'AlarmsController_update'>>> {
    return this.update(alarmId, { resolved: true } as RequestBody<'AlarmsController_update'>, options);
  }
}

// ------------------------------------------------------------------------------------ reports

/** A report file being downloaded: read `body` (a Node stream) once. */
export interface ReportDownload {
  body: Readable;
  contentType: string | undefined;
  /** From Content-Disposition. */
  filename: string | undefined;
  /** Content-Length, when sent. */
  size: number | undefined;
  /** The file's SHA-256 (the ETag), when sent. */
  sha256: string | undefined;
  lastResponse: ResponseInfo;
}

export interface DownloadResult {
  bytes: number;
  sha256: string;
  contentType: string | undefined;
  filename: string | undefined;
  /** The file written, when a path was given. */
  path?: string;
  /** The response (status, request id, rate limit). */
  lastResponse: ResponseInfo;
}

/**
 * The body, failing with a TimeoutError when no bytes arrive for `idleMs` (a body that stalls
 * after the headers never hangs the caller); the request is aborted too.
 */
function idleTimeout(body: Readable, idleMs: number, abort: (reason: unknown) => void, what: string): Readable {
  const guarded = new PassThrough();
  const stalled = (): void => {
    const error = new TimeoutError(`${what}: the download stalled (no data for ${idleMs} ms)`);
    abort(error);
    body.destroy(error);
    guarded.destroy(error);
  };
  const timer = setTimeout(stalled, idleMs);
  const stop = (): void => clearTimeout(timer);
  body.on('data', () => timer.refresh());
  body.once('end', stop);
  body.once('error', (error) => {
    stop();
    guarded.destroy(error);
  });
  guarded.once('close', () => {
    stop();
    if (!body.destroyed) body.destroy();
  });
  body.pipe(guarded);
  return guarded;
}

function filenameOf(disposition: string | null): string | undefined {
  if (!disposition) return undefined;
  const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
  if (star) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // fall back to the plain parameter
    }
  }
  return /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)?.[1];
}

export class ReportsResource extends Resource {
  /** GET /reports/ — filters `subject_type`, `shipment_id`, `device_id`. */
  list(query?: QueryParams<'ReportsController_list'>, options?: RequestOptions): Paginator<PageItem<'ReportsController_list'>> {
    return this.paginate('ReportsController_list', [], query, options);
  }

  /** GET /reports/{id}/ — file metadata. */
  get(reportId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'ReportsController_get'>>> {
    return this.call('ReportsController_get', [reportId], {}, options);
  }

  /** GET /reports/{id}/download/ — the file as a stream (nothing is buffered in memory). */
  async download(reportId: Id, options?: RequestOptions): Promise<ReportDownload> {
    const { response, info, abort } = await this.transport.stream({ operationId: 'ReportsController_download', pathParams: [reportId], options });
    if (!response.body) throw new ColdchainError('the report download answered without a body');
    const length = response.headers.get('content-length');
    const etag = response.headers.get('etag')?.replace(/^W\//, '').replace(/"/g, '');
    const idleMs = options?.timeoutMs ?? this.transport.timeoutMs;
    return {
      body: idleTimeout(Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>), idleMs, abort, `GET /reports/${reportId}/download/`),
      contentType: response.headers.get('content-type') ?? undefined,
      filename: filenameOf(response.headers.get('content-disposition')),
      size: length === null ? undefined : Number(length),
      sha256: etag && /^[0-9a-f]{64}$/i.test(etag) ? etag.toLowerCase() : undefined,
      lastResponse: info,
    };
  }

  /**
   * Streams a report into a file (written to `<path>.part`, renamed when complete) or into a
   * writable stream. Checks the byte count and the SHA-256 the service sent; a mismatch removes
   * the partial file and throws.
   */
  async downloadTo(reportId: Id, destination: string | Writable, options?: RequestOptions): Promise<DownloadResult> {
    const download = await this.download(reportId, options);
    const hash = createHash('sha256');
    let bytes = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    const partial = typeof destination === 'string' ? `${destination}.part` : undefined;
    try {
      await pipeline(download.body, meter, partial ? createWriteStream(partial) : (destination as Writable), { signal: options?.signal });
      const sha256 = hash.digest('hex');
      if (download.size !== undefined && bytes !== download.size) throw new ColdchainError(`report ${reportId}: received ${bytes} bytes, expected ${download.size}`);
      if (download.sha256 !== undefined && sha256 !== download.sha256) throw new ColdchainError(`report ${reportId}: SHA-256 of the received bytes does not match the ETag`);
      if (partial) await rename(partial, destination as string);
      return {
        bytes,
        sha256,
        contentType: download.contentType,
        filename: download.filename,
        ...(partial ? { path: destination as string } : {}),
        lastResponse: download.lastResponse,
      };
    } catch (error) {
      if (partial) await rm(partial, { force: true });
      throw error;
    }
  }
}

// ------------------------------------------------------------------------------------ users, roles, invitations

export class UsersResource extends Resource {
  /** GET /users/ — customer users of the account. */
  list(query?: QueryParams<'UsersController_list'>, options?: RequestOptions): Paginator<PageItem<'UsersController_list'>> {
    return this.paginate('UsersController_list', [], query, options);
  }

  get(userId: Id, options?: RequestOptions): Promise<WithResponse<ResponseBody<'UsersController_get'>>> {
    return this.call('UsersController_get', [userId], {}, options);
  }

  /** PATCH — profile and an assignable role (never COMPANY_ADMIN). */
  update(userId: Id, body: RequestBody<'UsersController_update'>, options?: RequestOptions): Promise<WithResponse<ResponseBody<'UsersController_update'>>> {
    return this.call('UsersController_update', [userId], { body }, options);
  }

  /** DELETE — deactivates a regular user (company administrators are protected). */
  deactivate(userId: Id, options?: RequestOptions): Promise<void> {
    return this.noContent('UsersController_deactivate', [userId], options);
  }
}

export class RolesResource extends Resource {
  /** GET /roles/ — roles for a user interface. */
  list(options?: RequestOptions): Paginator<PageItem<'RolesController_list'>> {
    return this.paginate('RolesController_list', [], undefined, options);
  }
}

export class InvitationsResource extends Resource {
  /** GET /user-invitations/ — pending, accepted and expired invitations (never the token). */
  list(query?: QueryParams<'InvitationsController_list'>, options?: RequestOptions): Paginator<PageItem<'InvitationsController_list'>> {
    return this.paginate('InvitationsController_list', [], query, options);
  }

  /** POST — e-mails an invitation to the hosted password page. */
  create(body: RequestBody<'InvitationsController_create'>, options?: CreateOptions): Promise<WithResponse<ResponseBody<'InvitationsController_create'>>> {
    return this.call('InvitationsController_create', [], { body }, options);
  }

  /** DELETE — revokes an invitation not yet accepted. */
  revoke(invitationId: Id, options?: RequestOptions): Promise<void> {
    return this.noContent('InvitationsController_revoke', [invitationId], options);
  }
}
