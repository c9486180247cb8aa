import type { WebhookAttemptView } from '@app/webhooks';
import { attemptOrigin, attemptResult, deliverySource, deliveryState } from './attempt-labels';

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

describe('delivery states on the event page (issue 31 item 1)', () => {
  const queued = '2026-11-28T22:11:20.000Z';
  const closed = '2026-11-28T22:11:21.000Z';
  const delivery = { status: 'skipped' as const, attempts: 0, created_at: queued, completed_at: closed };

  it('say what became of each delivery, and when', () => {
    expect(deliveryState(delivery)).toEqual({ label: 'Not sent: the endpoint was disabled', at: closed, ok: false });
    expect(deliveryState({ ...delivery, status: 'cancelled', attempts: 3 })).toEqual({ label: 'Cancelled: the endpoint was disabled', at: closed, ok: false });
    expect(deliveryState({ ...delivery, status: 'succeeded', attempts: 1 })).toMatchObject({ label: 'Delivered', ok: true });
    expect(deliveryState({ ...delivery, status: 'failed', attempts: 7 })).toMatchObject({ label: 'Failed; retries ended', ok: false });
    expect(deliveryState({ ...delivery, status: 'pending', attempts: 2, completed_at: null })).toEqual({ label: 'Failing, will retry', at: queued, ok: false });
    expect(deliveryState({ ...delivery, status: 'pending', attempts: 0, completed_at: null })).toEqual({ label: 'Queued', at: queued, ok: true });
  });

  it('name who queued it when not the event itself', () => {
    expect(deliverySource({ origin: 'event', recovered: false })).toBeNull();
    expect(deliverySource({ origin: 'event', recovered: true })).toBe('Recovery');
    expect(deliverySource({ origin: 'recover', recovered: true })).toBe('Recovery');
    expect(deliverySource({ origin: 'resend', recovered: false })).toBe('Resend');
    expect(deliverySource({ origin: 'test', recovered: false })).toBe('Test');
  });
});
