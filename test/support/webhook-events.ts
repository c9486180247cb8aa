import type { DataSource } from 'typeorm';
import { newId } from '@app/database';

/** How one endpoint's delivery of a seeded event stands. */
export interface SeededDelivery {
  endpointId: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'skipped';
  /** Attempts made; each one is written to the attempt log (failures with a 503, a success with 204). */
  attempts?: number;
}

export interface SeededEvent {
  accountId: string;
  eventId?: string;
  type: string;
  /** When the fan-out queued it (all of its deliveries share it, as the fan-out's one statement does). */
  at: Date;
  deliveries: SeededDelivery[];
  /** The body as sent; default: an envelope of this id and type. */
  body?: string;
}

/**
 * Writes an event's deliveries and attempt log rows directly, as the dispatcher would have left
 * them (the event log only reads these tables). Returns the event id.
 */
export async function seedWebhookEvent(dataSource: DataSource, event: SeededEvent): Promise<string> {
  const eventId = event.eventId ?? newId();
  const body = event.body ?? JSON.stringify({ id: eventId, type: event.type, created_at: event.at.toISOString(), data: { note: 'seeded' } });
  for (const delivery of event.deliveries) {
    const id = newId();
    const attempts = delivery.attempts ?? (delivery.status === 'pending' ? 0 : 1);
    const pending = delivery.status === 'pending';
    await dataSource.query(
      `INSERT INTO webhook_deliveries (id, account_id, endpoint_id, event_id, event_type, origin, body, status, attempts, next_attempt_at, created_at, completed_at)
       VALUES ($1, $2, $3, $4, $5, 'event', $6, $7, $8, $9, $10, $11)`,
      [id, event.accountId, delivery.endpointId, eventId, event.type, Buffer.from(body), delivery.status, attempts,
        pending ? new Date(event.at.getTime() + 3_600_000) : null, event.at, pending ? null : new Date(event.at.getTime() + 60_000)],
    );
    for (let n = 1; n <= attempts; n += 1) {
      const succeeded = delivery.status === 'succeeded' && n === attempts;
      const outcome = succeeded ? 'succeeded' : n === attempts && delivery.status === 'failed' ? 'failed' : 'retry';
      await dataSource.query(
        `INSERT INTO webhook_attempts (id, account_id, endpoint_id, webhook_delivery_id, event_id, event_type, attempt_number, attempted_at, outcome, status_code, error, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [newId(), event.accountId, delivery.endpointId, id, eventId, event.type, n, new Date(event.at.getTime() + n * 1000), outcome,
          succeeded ? 204 : 503, succeeded ? null : 'HTTP 503 <from receiver>', 40 + n],
      );
    }
  }
  return eventId;
}
