import type { EventDeliveryView, WebhookAttemptView } from '@app/webhooks';
import { html, type Html } from '../../common/html';

type Labelled = Pick<WebhookAttemptView, 'attempt_number' | 'outcome' | 'origin' | 'recovered' | 'delivery_status'>;

/** Who queued the attempt (issue 31 item 2): "Automatic", "Retry 2", "Recovery", "Resend, retry 1", "Test". */
export function attemptOrigin(attempt: Labelled): string {
  const retry = attempt.attempt_number - 1;
  if (attempt.origin === null) return `Attempt ${attempt.attempt_number}`;
  if (attempt.origin === 'test') return retry === 0 ? 'Test' : `Test, retry ${retry}`;
  const source = attempt.recovered ? 'Recovery' : attempt.origin === 'resend' ? 'Resend' : null;
  if (!source) return retry === 0 ? 'Automatic' : `Retry ${retry}`;
  return retry === 0 ? source : `${source}, retry ${retry}`;
}

/**
 * The attempt's result and where its delivery ended: a failed attempt whose retries were later
 * cancelled (the endpoint was disabled) or succeeded no longer reads "will retry".
 */
export function attemptResult(attempt: Labelled): { label: string; ok: boolean } {
  if (attempt.outcome === 'succeeded') return { label: 'Succeeded', ok: true };
  if (attempt.outcome === 'failed') return { label: 'Failed; no more retries', ok: false };
  const after: Record<string, string> = {
    pending: 'Failed, will retry',
    cancelled: 'Failed; retries cancelled: endpoint disabled',
    succeeded: 'Failed; a later retry succeeded',
    failed: 'Failed; retries failed too',
  };
  return { label: (attempt.delivery_status && after[attempt.delivery_status]) || 'Failed', ok: false };
}

/** The attempt's result and where its delivery ended, as a status badge. */
export function attemptResultHtml(attempt: Labelled): Html {
  const result = attemptResult(attempt);
  return html`<span class="status ${result.ok ? 'ok' : 'bad'}">${result.label}</span>`;
}

/** Who queued a delivery: "Recovery", "Resend", "Test"; null for the event's own fan-out. */
export function deliverySource(delivery: Pick<EventDeliveryView, 'origin' | 'recovered'>): string | null {
  if (delivery.recovered) return 'Recovery';
  if (delivery.origin === 'resend') return 'Resend';
  if (delivery.origin === 'test') return 'Test';
  return null;
}

/**
 * What became of one delivery of an event to one endpoint (issue 31 item 1), and when: the event
 * page lists them per endpoint ("Not sent: the endpoint was disabled", "Cancelled: the endpoint
 * was disabled", "Delivered", …), each after its source when queued by a recovery or by hand.
 */
export function deliveryState(delivery: Pick<EventDeliveryView, 'status' | 'attempts' | 'created_at' | 'completed_at'>): { label: string; at: string; ok: boolean } {
  const closed = delivery.completed_at ?? delivery.created_at;
  const states: Record<EventDeliveryView['status'], { label: string; at: string; ok: boolean }> = {
    skipped: { label: 'Not sent: the endpoint was disabled', at: closed, ok: false },
    cancelled: { label: 'Cancelled: the endpoint was disabled', at: closed, ok: false },
    failed: { label: 'Failed; retries ended', at: closed, ok: false },
    succeeded: { label: 'Delivered', at: closed, ok: true },
    pending: { label: delivery.attempts > 0 ? 'Failing, will retry' : 'Queued', at: delivery.created_at, ok: delivery.attempts === 0 },
  };
  return states[delivery.status];
}
