import type { DataSource } from 'typeorm';
import { EVENT_TYPES } from '@app/events';
import { WEBHOOK_TEST_EVENT_TYPE } from '@app/webhook-kit';
import { UUID_PATTERN as UUID, type AccountId, type TimeAndId } from '@app/vocabulary';
import { EVENT_OUTCOMES, type DeliveryOrigin, type DeliveryStatus, type EventOutcome } from './delivery-records';
import { WebhookNotFoundError } from './endpoints.errors';
import type { WebhookAttemptView } from './endpoints.types';
import { findEventAttempts, findEventBody, findEventDeliveries, findScanFrontier, listEventLog, type EventLogRow } from './store/webhook-event-log.repository';
import type { EventLogFilter } from './delivery-records';

/** The types an event of the log can have: the published ones and the panel's test event. */
export const EVENT_LOG_TYPES: readonly string[] = [...EVENT_TYPES, WEBHOOK_TEST_EVENT_TYPE];

/** The outcome for one endpoint, from its deliveries of the event (same rule as the list's SQL). */
export function endpointOutcome(deliveries: ReadonlyArray<{ status: DeliveryStatus; attempts: number }>): EventOutcome {
  if (deliveries.some((d) => d.status === 'succeeded')) return 'delivered';
  if (deliveries.some((d) => d.status === 'pending' && d.attempts > 0)) return 'failing';
  if (deliveries.some((d) => d.status === 'pending')) return 'pending';
  if (deliveries.some((d) => d.status === 'failed' || d.status === 'cancelled')) return 'failed';
  return 'not_sent';
}

/** The worst of several endpoints' outcomes (an event with no delivery left counts as delivered). */
export function worstOutcome(outcomes: readonly EventOutcome[]): EventOutcome {
  return outcomes.reduce<EventOutcome>((worst, o) => (EVENT_OUTCOMES.indexOf(o) > EVENT_OUTCOMES.indexOf(worst) ? o : worst), 'delivered');
}

export interface EventLogEntry {
  event_id: string;
  event_type: string;
  /** When the event was first queued for delivery (its fan-out to the endpoints). */
  created_at: string;
  outcome: EventOutcome;
  /** Endpoints it was queued for. */
  endpoints: number;
  /** Its keyset position in the log: its first delivery's (created_at, id). */
  position: TimeAndId;
}

/** Deliveries read at most for one page of the log (a rare filter value then ends the page early). */
export const EVENT_LOG_SCAN_LIMIT = 5000;

export interface EventLogResult {
  /** Up to the page's `limit` events, in the direction read. */
  entries: EventLogEntry[];
  /**
   * Set when the page's scan stopped at its budget before finding `limit` events: the position
   * of the last delivery read (and its time), from which the next page goes on.
   */
  frontier: { position: TimeAndId; at: string } | null;
}

export interface EventLogPage {
  /** Rows after this position in the list's order (newest first); null: from the newest. */
  after: TimeAndId | null;
  /** Rows to read (the paginator asks for one more than it shows). */
  limit: number;
  /** Read towards the newest instead (the "Newer" link): the rows come back oldest first. */
  newer: boolean;
}

export interface EventDeliveryView {
  id: string;
  origin: DeliveryOrigin;
  status: DeliveryStatus;
  attempts: number;
  /** Queued by a recovery after an outage. */
  recovered: boolean;
  created_at: string;
  completed_at: string | null;
}

export type EventAttemptView = Omit<WebhookAttemptView, 'event_id' | 'event_type'>;

/** One endpoint's share of an event: its deliveries (the fan-out's, resends) and their attempts. */
export interface EventEndpointView {
  endpoint_id: string;
  url: string;
  enabled: boolean;
  outcome: EventOutcome;
  deliveries: EventDeliveryView[];
  /** Oldest first; the attempt log keeps the last 100 attempts of each endpoint. */
  attempts: EventAttemptView[];
}

export interface WebhookEventView {
  event_id: string;
  event_type: string;
  /** The event's time: where the log lists it (its first delivery's listed time; a recovery's row carries its event's). */
  at: string;
  outcome: EventOutcome;
  /** The body as delivered (UTF-8 text), or null once deleted after WEBHOOK_RETENTION_DAYS. */
  payload: string | null;
  endpoints: EventEndpointView[];
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

function presentEntry(row: EventLogRow): EventLogEntry {
  return {
    event_id: row.event_id,
    event_type: row.event_type,
    created_at: row.created_at.toISOString(),
    outcome: row.outcome,
    endpoints: row.endpoints,
    position: { at: row.created_at_key, id: row.delivery_id },
  };
}

/**
 * The account's webhook events (issue 17 §2): every event queued for at least one of its
 * endpoints in the last WEBHOOK_RETENTION_DAYS, with its deliveries and attempts. Read only; the
 * event of another account is "not found".
 */
export class WebhookEventLog {
  constructor(
    private readonly dataSource: DataSource,
    readonly options: { retentionDays: number; scanLimit?: number },
  ) {}

  async list(accountId: AccountId, filter: EventLogFilter, page: EventLogPage): Promise<EventLogResult> {
    const scan = { after: page.after, newer: page.newer, scanLimit: this.options.scanLimit ?? EVENT_LOG_SCAN_LIMIT };
    const rows = await listEventLog(this.dataSource, accountId, this.options.retentionDays, filter, scan, page.limit);
    // A full page read what it needed; a short one either reached the end or used its budget.
    const frontier = rows.length < page.limit ? await findScanFrontier(this.dataSource, accountId, this.options.retentionDays, filter, scan) : null;
    return {
      entries: rows.map(presentEntry),
      frontier: frontier ? { position: { at: frontier.created_at_key, id: frontier.id }, at: frontier.created_at.toISOString() } : null,
    };
  }

  /** The event with its payload and, per endpoint, its deliveries and attempts. */
  async get(accountId: AccountId, eventId: string): Promise<WebhookEventView> {
    if (!UUID.test(eventId)) throw new WebhookNotFoundError(`no event ${eventId}`);
    const deliveries = await findEventDeliveries(this.dataSource, accountId, eventId);
    if (deliveries.length === 0) throw new WebhookNotFoundError(`no event ${eventId}`);
    const [body, attempts] = await Promise.all([findEventBody(this.dataSource, accountId, eventId), findEventAttempts(this.dataSource, accountId, eventId)]);
    const endpoints = new Map<string, EventEndpointView>();
    for (const row of deliveries) {
      const endpoint = endpoints.get(row.endpoint_id) ?? {
        endpoint_id: row.endpoint_id,
        url: row.endpoint_url,
        enabled: row.endpoint_enabled,
        outcome: 'pending',
        deliveries: [],
        attempts: [],
      };
      endpoint.deliveries.push({ id: row.id, origin: row.origin, status: row.status, attempts: row.attempts, recovered: row.recovered === true || row.origin === 'recover', created_at: row.created_at.toISOString(), completed_at: iso(row.completed_at) });
      endpoints.set(row.endpoint_id, endpoint);
    }
    for (const endpoint of endpoints.values()) endpoint.outcome = endpointOutcome(endpoint.deliveries);
    for (const a of attempts) {
      endpoints.get(a.endpoint_id)?.attempts.push({
        delivery_id: a.id,
        webhook_delivery_id: a.webhook_delivery_id,
        attempt_number: a.attempt_number,
        attempted_at: a.attempted_at.toISOString(),
        outcome: a.outcome,
        status_code: a.status_code,
        error: a.error,
        duration_ms: a.duration_ms,
        origin: a.origin,
        recovered: a.recovered === true || a.origin === 'recover',
        delivery_status: a.delivery_status,
      });
    }
    const first = deliveries.reduce((a, b) => (b.listed_at < a.listed_at ? b : a));
    const views = [...endpoints.values()];
    return {
      event_id: eventId,
      event_type: first.event_type,
      at: first.listed_at.toISOString(),
      outcome: worstOutcome(views.map((v) => v.outcome)),
      payload: body ? body.toString('utf8') : null,
      endpoints: views,
    };
  }
}
