import type { WebhookAttemptView } from '@app/webhooks';
import { attemptOrigin, attemptResult } from './attempt-labels';

type Labelled = Pick<WebhookAttemptView, 'attempt_number' | 'outcome' | 'origin' | 'recovered' | 'delivery_status'>;
const attempt = (fields: Partial<Labelled>): Labelled => ({ attempt_number: 1, outcome: 'succeeded', origin: 'event', recovered: false, delivery_status: 'succeeded', ...fields });

describe('attempt labels (issue 31 item 2)', () => {
  it('say who queued the attempt: automatic, retry n, recovery, resend, test', () => {
    expect(attemptOrigin(attempt({}))).toBe('Automatic');
    expect(attemptOrigin(attempt({ attempt_number: 3 }))).toBe('Retry 2');
    expect(attemptOrigin(attempt({ origin: 'recover', recovered: true }))).toBe('Recovery');
    // An event the endpoint never got while disabled is recovered as the fan-out's own row.
    expect(attemptOrigin(attempt({ origin: 'event', recovered: true, attempt_number: 2 }))).toBe('Recovery, retry 1');
    expect(attemptOrigin(attempt({ origin: 'resend' }))).toBe('Resend');
    expect(attemptOrigin(attempt({ origin: 'resend', attempt_number: 4 }))).toBe('Resend, retry 3');
    expect(attemptOrigin(attempt({ origin: 'test' }))).toBe('Test');
    expect(attemptOrigin(attempt({ origin: null, attempt_number: 2 }))).toBe('Attempt 2');
  });

  it('say how the delivery ended, not only the attempt', () => {
    expect(attemptResult(attempt({}))).toEqual({ label: 'Succeeded', ok: true });
    expect(attemptResult(attempt({ outcome: 'retry', delivery_status: 'pending' }))).toEqual({ label: 'Failed, will retry', ok: false });
    expect(attemptResult(attempt({ outcome: 'retry', delivery_status: 'cancelled' }))).toEqual({ label: 'Failed; retries cancelled: endpoint disabled', ok: false });
    expect(attemptResult(attempt({ outcome: 'retry', delivery_status: 'succeeded' }))).toEqual({ label: 'Failed; a later retry succeeded', ok: false });
    expect(attemptResult(attempt({ outcome: 'retry', delivery_status: 'failed' }))).toEqual({ label: 'Failed; retries failed too', ok: false });
    expect(attemptResult(attempt({ outcome: 'failed', delivery_status: 'failed' }))).toEqual({ label: 'Failed; no more retries', ok: false });
    expect(attemptResult(attempt({ outcome: 'retry', delivery_status: null }))).toEqual({ label: 'Failed', ok: false });
  });
});
