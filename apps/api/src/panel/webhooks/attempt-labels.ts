import type { WebhookAttemptView } from '@app/webhooks';
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
