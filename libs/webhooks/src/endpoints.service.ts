import { v7 as uuidv7 } from 'uuid';
import type { DataSource } from 'typeorm';
import { accountExists, newId } from '@app/database';
import type { Db } from '@app/database/sql';
import { EVENT_TYPES, findAccountEvent, isEventType, type EventEnvelope } from '@app/events';
import { WEBHOOK_TEST_EVENT_TYPE } from '@app/webhook-kit';
import { UUID_PATTERN as UUID, type AccountId } from '@app/vocabulary';
import { WebhookEndpointAlreadyCreatedError, WebhookEndpointLimitError, WebhookInputError, WebhookNotFoundError, WebhookStateError } from './endpoints.errors';
import {
  DEFAULT_SIGNATURE_FORMAT,
  SECRET_ROTATION_WINDOW_HOURS,
  SIGNATURE_FORMATS,
  type SignatureFormat,
  type CreatedWebhookEndpoint,
  type CreateWebhookEndpointInput,
  type QueuedWebhookDelivery,
  type RotatedWebhookSecret,
  type UpdateWebhookEndpointInput,
  type WebhookAttemptView,
  type WebhookEndpointsOptions,
  type WebhookEndpointView,
} from './endpoints.types';
import { encryptSecret, generateSigningSecret } from './secret-box';
import { WebhookDnsResolver } from './dns-resolver';
import { ATTEMPTS_KEPT_PER_ENDPOINT } from './retention';
import { endpointHealth, type EndpointHealth, HEALTH_LONG_HOURS, HEALTH_SHORT_HOURS, type HealthTotals, successTotals, windowStart } from './health';
import { assertPublicTarget, parseWebhookUrl, WebhookTargetError } from './target-policy';
import { cancelPendingDeliveries, insertDelivery } from './store/webhook-deliveries.repository';
import {
  accountOfEndpoint,
  countEndpoints,
  deleteEndpoint,
  endpointSuccessTotals,
  disableEndpoint,
  enableEndpoint,
  findEndpoint,
  findSentEventBody,
  insertEndpoint,
  listAttempts,
  listEndpoints,
  listHourlyStats,
  lockAccountForRegistration,
  rotateEndpointSecret,
  updateEndpoint,
  type WebhookAttemptRow,
  type WebhookEndpointRow as EndpointRow,
} from './store/webhook-endpoints.repository';

export const ATTEMPTS_VISIBLE = 100;
export const DEFAULT_MAX_ENDPOINTS_PER_ACCOUNT = 20;
const MAX_DESCRIPTION = 500;

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

function present(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    account_id: row.account_id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.enabled ? 'enabled' : 'disabled',
    consecutive_failures: row.consecutive_failures,
    disabled_at: iso(row.disabled_at),
    disabled_reason: row.disabled_reason,
    secret_rotated_at: iso(row.secret_rotated_at),
    signature_format: row.signature_format,
    // A window that is over is no window: the replaced secret no longer signs.
    previous_secret_expires_at: row.previous_secret_expires_at && row.previous_secret_expires_at.getTime() > Date.now() ? iso(row.previous_secret_expires_at) : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Webhook endpoint management (spec §6.1), shared by the ops CLI and the web panel. Every method
 * that touches tenant data takes the account id first and scopes its query by it; another
 * tenant's endpoint is "not found". Signing secrets are generated here, stored only encrypted and
 * returned exactly once (create, rotate).
 */
export class WebhookEndpointsService {
  private readonly resolver: (hostname: string) => Promise<string[]>;
  private readonly maxEndpoints: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly options: WebhookEndpointsOptions,
  ) {
    if (options.resolver) {
      this.resolver = options.resolver;
    } else {
      // Not dns.lookup: a name whose DNS never answers would hold one of the four libuv threads.
      const dns = new WebhookDnsResolver({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs ?? 3000 });
      this.resolver = (hostname) => dns.resolve(hostname);
    }
    this.maxEndpoints = options.maxEndpointsPerAccount ?? DEFAULT_MAX_ENDPOINTS_PER_ACCOUNT;
  }

  async create(accountId: AccountId, input: CreateWebhookEndpointInput): Promise<CreatedWebhookEndpoint> {
    const url = await this.checkUrl(input.url);
    const events = this.checkEvents(input.events);
    const description = this.checkDescription(input.description);
    const signatureFormat = this.checkSignatureFormat(input.signature_format ?? DEFAULT_SIGNATURE_FORMAT);
    if (!UUID.test(accountId)) throw new WebhookInputError('account_id', 'not an account id');
    if (!(await accountExists(this.dataSource, accountId))) throw new WebhookInputError('account_id', `no account ${accountId}`);

    if (input.id !== undefined && !UUID.test(input.id)) throw new WebhookInputError('id', 'not an endpoint id');

    const id = input.id ?? newId();
    const secret = generateSigningSecret();
    const created = await this.dataSource.transaction(async (manager) => {
      // Serialises this account's registrations (NO KEY UPDATE: foreign-key checks elsewhere are not blocked), so
      // concurrent requests cannot pass the cap together.
      await lockAccountForRegistration(manager, accountId);
      const { n, resubmitted } = await countEndpoints(manager, accountId, id);
      if (!resubmitted && n >= this.maxEndpoints) throw new WebhookEndpointLimitError(this.maxEndpoints);
      return insertEndpoint(manager, accountId, { id, url, events, description, signatureFormat, secretCiphertext: encryptSecret(this.options.secretsKey, secret, id) });
    });
    if (!created) throw new WebhookEndpointAlreadyCreatedError();
    return { ...present(created), signing_secret: secret };
  }

  async list(accountId: AccountId): Promise<WebhookEndpointView[]> {
    if (!UUID.test(accountId)) return [];
    return (await listEndpoints(this.dataSource, accountId)).map(present);
  }

  async get(accountId: AccountId, endpointId: string): Promise<WebhookEndpointView> {
    return present(await this.find(this.dataSource, accountId, endpointId));
  }

  /**
   * Changes the address, the subscription, the description or the signature format; the address is
   * checked as on create. The secret stays: one secret serves both formats.
   */
  async update(accountId: AccountId, endpointId: string, input: UpdateWebhookEndpointInput): Promise<WebhookEndpointView> {
    const current = await this.find(this.dataSource, accountId, endpointId);
    const url = input.url === undefined ? current.url : await this.checkUrl(input.url);
    const events = input.events === undefined ? current.events : this.checkEvents(input.events);
    const description = input.description === undefined ? current.description : this.checkDescription(input.description);
    const signatureFormat = input.signature_format === undefined ? current.signature_format : this.checkSignatureFormat(input.signature_format);
    const updated = await updateEndpoint(this.dataSource, accountId, endpointId, { url, events, description, signatureFormat });
    if (!updated) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    return present(updated);
  }

  /**
   * A new secret, in force for the very next attempt (pending retries included). The replaced one
   * keeps signing for SECRET_ROTATION_WINDOW_HOURS as a second `webhook-signature` entry of
   * Standard Webhooks requests; the X-Service-Signature carries the new one only (spec §6.5).
   */
  async rotateSecret(accountId: AccountId, endpointId: string): Promise<RotatedWebhookSecret> {
    this.checkIds(accountId, endpointId);
    const secret = generateSigningSecret();
    const window = SECRET_ROTATION_WINDOW_HOURS * 3600;
    const rotated = await rotateEndpointSecret(this.dataSource, accountId, endpointId, encryptSecret(this.options.secretsKey, secret, endpointId), window);
    if (!rotated) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    return { endpoint: present(rotated), signing_secret: secret };
  }

  /**
   * Re-enables an endpoint (after the address was fixed) and resets its failure count. Deliveries
   * cancelled when it was disabled stay cancelled; `resend` sends one again by hand.
   */
  async enable(accountId: AccountId, endpointId: string): Promise<WebhookEndpointView> {
    this.checkIds(accountId, endpointId);
    const enabled = await enableEndpoint(this.dataSource, accountId, endpointId);
    if (!enabled) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    return present(enabled);
  }

  /** Disables an endpoint and cancels its pending deliveries. Disabling twice keeps the first reason. */
  async disable(accountId: AccountId, endpointId: string, reason = 'disabled by an operator'): Promise<WebhookEndpointView> {
    this.checkIds(accountId, endpointId);
    return this.dataSource.transaction(async (manager) => {
      // The endpoint row first: the dispatcher locks in the same order (no deadlock).
      const disabled = await disableEndpoint(manager, accountId, endpointId, reason);
      if (!disabled) return present(await this.find(manager, accountId, endpointId));
      await cancelPendingDeliveries(manager, accountId, endpointId);
      return present(disabled);
    });
  }

  /** Deletes the endpoint with its deliveries and attempt log. */
  async remove(accountId: AccountId, endpointId: string): Promise<void> {
    this.checkIds(accountId, endpointId);
    if ((await deleteEndpoint(this.dataSource, accountId, endpointId)) === 0) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
  }

  /** Queues a `webhook.test` event for this endpoint only (whatever its subscription). */
  async sendTestEvent(accountId: AccountId, endpointId: string): Promise<QueuedWebhookDelivery> {
    const endpoint = await this.find(this.dataSource, accountId, endpointId);
    this.requireEnabled(endpoint);
    const envelope: EventEnvelope = {
      id: uuidv7(),
      type: WEBHOOK_TEST_EVENT_TYPE,
      created_at: new Date().toISOString(),
      data: { endpoint_id: endpoint.id, message: 'Test event: your endpoint receives and verifies webhooks.' },
    };
    const id = await insertDelivery(this.dataSource, {
      accountId,
      endpointId,
      eventId: envelope.id,
      eventType: envelope.type,
      origin: 'test',
      body: Buffer.from(JSON.stringify(envelope)),
    });
    return { webhook_delivery_id: id, endpoint_id: endpointId, event_id: envelope.id, event_type: envelope.type, origin: 'test' };
  }

  /**
   * Sends one event to the endpoint again, by hand: a new delivery with the same event id and the
   * same body bytes (receivers de-duplicate on the event id). The event must be of this account
   * and of a type the endpoint subscribes to.
   */
  async resend(accountId: AccountId, endpointId: string, eventId: string): Promise<QueuedWebhookDelivery> {
    const endpoint = await this.find(this.dataSource, accountId, endpointId);
    this.requireEnabled(endpoint);
    const event = UUID.test(eventId) ? await this.findEventBody(accountId, endpointId, eventId) : null;
    if (!event) throw new WebhookNotFoundError(`no event ${eventId}`);
    if (event === 'expired') {
      throw new WebhookStateError('event_expired', 'the event is older than the retention period: its body is no longer stored, so it cannot be sent again');
    }
    if (event.type !== WEBHOOK_TEST_EVENT_TYPE && !endpoint.events.includes(event.type)) {
      throw new WebhookStateError('event_not_subscribed', `the endpoint does not subscribe to ${event.type}`);
    }
    const id = await insertDelivery(this.dataSource, {
      accountId,
      endpointId,
      eventId,
      eventType: event.type,
      origin: 'resend',
      body: event.body,
    });
    return { webhook_delivery_id: id, endpoint_id: endpointId, event_id: eventId, event_type: event.type, origin: 'resend' };
  }

  /** The last attempts, newest first (at most 100 are kept per endpoint). */
  async listAttempts(accountId: AccountId, endpointId: string, limit = ATTEMPTS_VISIBLE): Promise<WebhookAttemptView[]> {
    await this.find(this.dataSource, accountId, endpointId);
    const rows = await listAttempts(this.dataSource, accountId, endpointId, Math.max(1, Math.min(limit, ATTEMPTS_VISIBLE)));
    return rows.map(attemptView);
  }

  /** Delivery health of the endpoint: attempts and latency per minute of the last hour (attempt log) and per hour of the last 24 hours and 7 days (rollup). */
  async health(accountId: AccountId, endpointId: string, now = new Date()): Promise<EndpointHealth> {
    return (await this.attemptsAndHealth(accountId, endpointId, now)).health;
  }

  /**
   * The endpoint page's data in one read of the attempt log: its last attempts (newest first, as
   * `listAttempts`) and its delivery health, whose minute chart is drawn from those same attempts.
   */
  async attemptsAndHealth(accountId: AccountId, endpointId: string, now = new Date()): Promise<{ attempts: WebhookAttemptView[]; health: EndpointHealth }> {
    await this.find(this.dataSource, accountId, endpointId);
    const [rows, attempts] = await Promise.all([
      listHourlyStats(this.dataSource, accountId, endpointId, windowStart(now, HEALTH_LONG_HOURS)),
      listAttempts(this.dataSource, accountId, endpointId, Math.max(ATTEMPTS_KEPT_PER_ENDPOINT, ATTEMPTS_VISIBLE)),
    ]);
    return {
      attempts: attempts.slice(0, ATTEMPTS_VISIBLE).map(attemptView),
      health: endpointHealth(rows, now, { attempts, logFull: attempts.length >= ATTEMPTS_KEPT_PER_ENDPOINT }),
    };
  }

  /** Every endpoint's attempts of the last 24 hours (the current hour and the 23 before), by endpoint id. */
  async successRates(accountId: AccountId, now = new Date()): Promise<Map<string, HealthTotals>> {
    if (!UUID.test(accountId)) return new Map();
    const rows = await endpointSuccessTotals(this.dataSource, accountId, windowStart(now, HEALTH_SHORT_HOURS));
    return new Map(rows.map((row) => [row.endpoint_id, successTotals(row.succeeded, row.failed)]));
  }

  /**
   * Platform-side lookup for ops tooling that addresses an endpoint by id alone (the CLI); the
   * tenant-scoped methods are then called with the account it returns.
   */
  async accountOfEndpoint(endpointId: string): Promise<AccountId | null> {
    if (!UUID.test(endpointId)) return null;
    return accountOfEndpoint(this.dataSource, endpointId);
  }

  private async find(db: Db, accountId: AccountId, endpointId: string): Promise<EndpointRow> {
    this.checkIds(accountId, endpointId);
    const endpoint = await findEndpoint(db, accountId, endpointId);
    if (!endpoint) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
    return endpoint;
  }

  /**
   * Prefers bytes already sent (to this endpoint first), else the outbox envelope. Bodies of old
   * deliveries are deleted after WEBHOOK_RETENTION_DAYS: an event known only by such rows is
   * "expired" (409), not an error.
   */
  private async findEventBody(accountId: AccountId, endpointId: string, eventId: string): Promise<{ type: string; body: Buffer } | 'expired' | null> {
    const sent = await findSentEventBody(this.dataSource, accountId, eventId, endpointId);
    const body = sent?.body;
    if (sent && body) return { type: sent.event_type, body };
    const outbox = await findAccountEvent(this.dataSource, accountId, eventId);
    if (!outbox) return sent ? 'expired' : null;
    return { type: outbox.event_type, body: Buffer.from(JSON.stringify(outbox.envelope)) };
  }

  private requireEnabled(endpoint: EndpointRow): void {
    if (!endpoint.enabled) throw new WebhookStateError('endpoint_disabled', 'the endpoint is disabled; enable it first');
  }

  /** Malformed ids cannot exist: "not found", rather than a database error. */
  private checkIds(accountId: AccountId, endpointId: string): void {
    if (!UUID.test(accountId) || !UUID.test(endpointId)) throw new WebhookNotFoundError(`no webhook endpoint ${endpointId}`);
  }

  private async checkUrl(raw: string): Promise<string> {
    try {
      const url = parseWebhookUrl(raw);
      if (!this.options.allowPrivateTargets) await assertPublicTarget(url, this.resolver);
      return url.toString();
    } catch (error) {
      if (error instanceof WebhookTargetError) throw new WebhookInputError('url', error.message);
      throw error;
    }
  }

  private checkEvents(events: string[]): string[] {
    if (!Array.isArray(events) || events.length === 0) {
      throw new WebhookInputError('events', `subscribe to at least one of ${EVENT_TYPES.join(', ')}`);
    }
    const unknown = events.filter((type) => !isEventType(type));
    if (unknown.length > 0) throw new WebhookInputError('events', `unknown event types: ${unknown.join(', ')} (known: ${EVENT_TYPES.join(', ')})`);
    return EVENT_TYPES.filter((type) => events.includes(type));
  }

  private checkSignatureFormat(format: string): SignatureFormat {
    const known = SIGNATURE_FORMATS.find((candidate) => candidate === format);
    if (!known) throw new WebhookInputError('signature_format', `one of ${SIGNATURE_FORMATS.join(', ')}`);
    return known;
  }

  private checkDescription(description: string | null | undefined): string | null {
    if (description === undefined || description === null || description.trim() === '') return null;
    if (description.length > MAX_DESCRIPTION) throw new WebhookInputError('description', `at most ${MAX_DESCRIPTION} characters`);
    return description.trim();
  }
}

function attemptView(row: WebhookAttemptRow): WebhookAttemptView {
  return {
    delivery_id: row.id,
    webhook_delivery_id: row.webhook_delivery_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt_number: row.attempt_number,
    attempted_at: row.attempted_at.toISOString(),
    outcome: row.outcome,
    status_code: row.status_code,
    error: row.error,
    duration_ms: row.duration_ms,
    origin: row.origin,
    recovered: row.recovered === true || row.origin === 'recover',
    delivery_status: row.delivery_status,
  };
}
