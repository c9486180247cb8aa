import { ColdchainError } from './errors';
import { OPERATIONS, type OperationId } from './generated/operations';
import {
  AccountsResource,
  AlarmsResource,
  AuditEventsResource,
  CatalogueResource,
  DevicesResource,
  InvitationsResource,
  MetaResource,
  OAuthResource,
  ReportsResource,
  RolesResource,
  ShipmentsResource,
  TelemetryResource,
  UsersResource,
} from './resources';
import { type Logger, Transport } from './transport';
import { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent, type WebhookHeaders } from './webhooks';

export interface ClientOptions {
  /** The service address, e.g. `https://coldchain.example.com` (a trailing `/api/public/v1` is accepted). */
  baseUrl: string;
  clientId: string;
  /** Keep it in a backend secret store; never ship it to a browser or app. */
  clientSecret: string;
  /** Ask for fewer scopes than the credential holds (default: all of them). */
  scopes?: readonly string[];
  /** The account (tenant) to work in, sent as X-Service-Account-ID; needed for multi-account credentials. */
  accountId?: string | null;
  /**
   * Timeout of each attempt in milliseconds (connection, headers and a JSON body); a report
   * download fails when its body stalls this long. Default 30 000.
   */
  timeoutMs?: number;
  /**
   * Retries after connection errors, timeouts and lost responses (where a repeat is safe), 429,
   * 502, 503, 504 and 409 `idempotency_request_in_progress` (rules: clients/README.md). Default 3.
   */
  maxRetries?: number;
  /** No retry starts later than this many milliseconds after the first attempt. Default 60 000. */
  maxRetryTimeMs?: number;
  /** First backoff step (full jitter, doubling per retry) when the answer has no Retry-After. Default 500. */
  backoffBaseMs?: number;
  /** Largest backoff step. Default 8 000. */
  backoffMaxMs?: number;
  /** A token is replaced this many seconds before it expires (at most 10 % of its lifetime). Default 60. */
  tokenRefreshMarginSeconds?: number;
  /** A fetch implementation (default: Node's global fetch). */
  fetch?: typeof fetch;
  /** Appended to the SDK's own User-Agent (`coldchain-node/<version> node/<version> <yours>`). */
  userAgent?: string;
  /** Receives retry and token notices (never a secret or token). */
  logger?: Logger;
}

/**
 * The Cold Chain Telemetry API v1 client.
 *
 * ```ts
 * const client = new ColdchainClient({ baseUrl, clientId, clientSecret });
 * for await (const device of client.devices.list()) console.log(device.id);
 * ```
 */
export class ColdchainClient {
  readonly meta: MetaResource;
  readonly oauth: OAuthResource;
  readonly accounts: AccountsResource;
  readonly locations: CatalogueResource<'Locations'>;
  readonly carriers: CatalogueResource<'Carriers'>;
  readonly receivers: CatalogueResource<'Receivers'>;
  readonly alertPresets: CatalogueResource<'AlertPresets'>;
  readonly shipmentTemplates: CatalogueResource<'ShipmentTemplates'>;
  readonly devices: DevicesResource;
  readonly telemetry: TelemetryResource;
  readonly shipments: ShipmentsResource;
  readonly alarms: AlarmsResource;
  readonly auditEvents: AuditEventsResource;
  readonly reports: ReportsResource;
  readonly users: UsersResource;
  readonly roles: RolesResource;
  readonly invitations: InvitationsResource;
  readonly #transport: Transport;

  constructor(options: ClientOptions | Transport) {
    const transport = options instanceof Transport ? options : new Transport(options);
    this.#transport = transport;
    this.meta = new MetaResource(transport);
    this.oauth = new OAuthResource(transport);
    this.accounts = new AccountsResource(transport);
    this.locations = new CatalogueResource(transport, 'Locations');
    this.carriers = new CatalogueResource(transport, 'Carriers');
    this.receivers = new CatalogueResource(transport, 'Receivers');
    this.alertPresets = new CatalogueResource(transport, 'AlertPresets');
    this.shipmentTemplates = new CatalogueResource(transport, 'ShipmentTemplates');
    this.devices = new DevicesResource(transport);
    this.telemetry = new TelemetryResource(transport);
    this.shipments = new ShipmentsResource(transport);
    this.alarms = new AlarmsResource(transport);
    this.auditEvents = new AuditEventsResource(transport);
    this.reports = new ReportsResource(transport);
    this.users = new UsersResource(transport);
    this.roles = new RolesResource(transport);
    this.invitations = new InvitationsResource(transport);
  }

  /** Builds a client from COLDCHAIN_BASE_URL, COLDCHAIN_CLIENT_ID, COLDCHAIN_CLIENT_SECRET (and COLDCHAIN_ACCOUNT_ID). */
  static fromEnv(env: Record<string, string | undefined> = process.env, options: Partial<ClientOptions> = {}): ColdchainClient {
    const missing = ['COLDCHAIN_BASE_URL', 'COLDCHAIN_CLIENT_ID', 'COLDCHAIN_CLIENT_SECRET'].filter((name) => !env[name]);
    if (missing.length > 0) throw new ColdchainError(`missing environment variable(s): ${missing.join(', ')}`);
    return new ColdchainClient({
      baseUrl: env.COLDCHAIN_BASE_URL as string,
      clientId: env.COLDCHAIN_CLIENT_ID as string,
      clientSecret: env.COLDCHAIN_CLIENT_SECRET as string,
      accountId: env.COLDCHAIN_ACCOUNT_ID || null,
      ...options,
    });
  }

  /** The account this client sends by default (null: none). */
  get accountId(): string | null {
    return this.#transport.accountId;
  }

  /** A client for another account, sharing this one's credential and cached token. */
  withAccount(accountId: string | null): ColdchainClient {
    return new ColdchainClient(this.#transport.withAccount(accountId));
  }

  /** Verifies a webhook request and parses its event (see `verifyWebhook`). */
  verifyWebhook(payload: Buffer | Uint8Array | string, headers: WebhookHeaders, secrets: string | readonly string[], options?: VerifyWebhookOptions): WebhookEvent {
    return verifyWebhook(payload, headers, secrets, options);
  }

  toJSON(): Record<string, unknown> {
    return this.#transport.toJSON();
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ColdchainClient ${JSON.stringify(this.toJSON())}`;
  }
}

/**
 * Which method serves each operation of the API description: `resource.method`. Typed as a
 * complete record of the generated operation ids, so a new operation fails compilation until it
 * has a method (and test/clients/node-generated.spec.ts calls each one).
 */
export const OPERATION_METHODS: Readonly<Record<OperationId, string>> = {
  ApiIndexController_index: 'meta.index',
  SchemaController_serve: 'meta.schema',
  TokenController_token: 'oauth.token',
  AccountsController_list: 'accounts.list',
  AccountsController_get: 'accounts.get',
  AccountsController_update: 'accounts.update',
  LocationsController_list: 'locations.list',
  LocationsController_create: 'locations.create',
  LocationsController_get: 'locations.get',
  LocationsController_replace: 'locations.replace',
  LocationsController_update: 'locations.update',
  LocationsController_remove: 'locations.delete',
  CarriersController_list: 'carriers.list',
  CarriersController_create: 'carriers.create',
  CarriersController_get: 'carriers.get',
  CarriersController_replace: 'carriers.replace',
  CarriersController_update: 'carriers.update',
  CarriersController_remove: 'carriers.delete',
  ReceiversController_list: 'receivers.list',
  ReceiversController_create: 'receivers.create',
  ReceiversController_get: 'receivers.get',
  ReceiversController_replace: 'receivers.replace',
  ReceiversController_update: 'receivers.update',
  ReceiversController_remove: 'receivers.delete',
  AlertPresetsController_list: 'alertPresets.list',
  AlertPresetsController_create: 'alertPresets.create',
  AlertPresetsController_get: 'alertPresets.get',
  AlertPresetsController_replace: 'alertPresets.replace',
  AlertPresetsController_update: 'alertPresets.update',
  AlertPresetsController_remove: 'alertPresets.delete',
  ShipmentTemplatesController_list: 'shipmentTemplates.list',
  ShipmentTemplatesController_create: 'shipmentTemplates.create',
  ShipmentTemplatesController_get: 'shipmentTemplates.get',
  ShipmentTemplatesController_replace: 'shipmentTemplates.replace',
  ShipmentTemplatesController_update: 'shipmentTemplates.update',
  ShipmentTemplatesController_remove: 'shipmentTemplates.delete',
  UsersController_list: 'users.list',
  UsersController_get: 'users.get',
  UsersController_update: 'users.update',
  UsersController_deactivate: 'users.deactivate',
  RolesController_list: 'roles.list',
  InvitationsController_list: 'invitations.list',
  InvitationsController_create: 'invitations.create',
  InvitationsController_revoke: 'invitations.revoke',
  DevicesController_list: 'devices.list',
  DevicesController_get: 'devices.get',
  DevicesController_updateLabel: 'devices.updateLabel',
  DevicesController_updateSettings: 'devices.updateSettings',
  DevicesController_status: 'devices.status',
  DevicesController_maintenance: 'devices.maintenance',
  TelemetryController_list: 'telemetry.list',
  AlarmsController_list: 'alarms.list',
  AlarmsController_get: 'alarms.get',
  AlarmsController_update: 'alarms.update',
  DeviceAlarmsController_list: 'devices.alarms',
  ShipmentsController_list: 'shipments.list',
  ShipmentsController_create: 'shipments.create',
  ShipmentsController_get: 'shipments.get',
  ShipmentsController_replace: 'shipments.replace',
  ShipmentsController_remove: 'shipments.delete',
  ShipmentsController_complete: 'shipments.complete',
  ShareController_get: 'shipments.getShare',
  ShareController_put: 'shipments.share',
  ShareController_revoke: 'shipments.revokeShare',
  TrackingController_list: 'shipments.tracking',
  ReportsController_list: 'reports.list',
  ReportsController_get: 'reports.get',
  ReportsController_download: 'reports.download',
  AuditEventsController_list: 'auditEvents.list',
  AuditEventsController_get: 'auditEvents.get',
};

export { OPERATIONS };
