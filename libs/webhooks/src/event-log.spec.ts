import { endpointOutcome, worstOutcome } from './event-log';

describe('event outcomes', () => {
  it('per endpoint: a 2xx wins, then a retry in progress, then a queued delivery; else failed', () => {
    expect(endpointOutcome([{ status: 'failed', attempts: 6 }, { status: 'succeeded', attempts: 1 }])).toBe('delivered');
    expect(endpointOutcome([{ status: 'pending', attempts: 2 }])).toBe('failing');
    expect(endpointOutcome([{ status: 'pending', attempts: 0 }, { status: 'failed', attempts: 6 }])).toBe('pending');
    expect(endpointOutcome([{ status: 'cancelled', attempts: 20 }])).toBe('failed');
    expect(endpointOutcome([{ status: 'failed', attempts: 6 }])).toBe('failed');
  });

  it('per endpoint: an event skipped while the endpoint was disabled is "not sent" until a recovery sends it', () => {
    expect(endpointOutcome([{ status: 'skipped', attempts: 0 }])).toBe('not_sent');
    expect(endpointOutcome([{ status: 'skipped', attempts: 0 }, { status: 'pending', attempts: 0 }])).toBe('pending');
    expect(endpointOutcome([{ status: 'skipped', attempts: 0 }, { status: 'succeeded', attempts: 1 }])).toBe('delivered');
    expect(endpointOutcome([{ status: 'skipped', attempts: 0 }, { status: 'failed', attempts: 7 }])).toBe('failed');
    expect(worstOutcome(['not_sent', 'failing'])).toBe('not_sent');
    expect(worstOutcome(['not_sent', 'failed'])).toBe('failed');
  });

  it('per event: its worst endpoint', () => {
    expect(worstOutcome(['delivered', 'pending'])).toBe('pending');
    expect(worstOutcome(['failing', 'pending', 'delivered'])).toBe('failing');
    expect(worstOutcome(['delivered', 'failed', 'failing'])).toBe('failed');
    expect(worstOutcome([])).toBe('delivered');
  });
});
