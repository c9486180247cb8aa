import { endpointOutcome, worstOutcome } from './event-log';

describe('event outcomes', () => {
  it('per endpoint: a 2xx wins, then a retry in progress, then a queued delivery; else failed', () => {
    expect(endpointOutcome([{ status: 'failed', attempts: 6 }, { status: 'succeeded', attempts: 1 }])).toBe('delivered');
    expect(endpointOutcome([{ status: 'pending', attempts: 2 }])).toBe('failing');
    expect(endpointOutcome([{ status: 'pending', attempts: 0 }, { status: 'failed', attempts: 6 }])).toBe('pending');
    expect(endpointOutcome([{ status: 'cancelled', attempts: 20 }])).toBe('failed');
    expect(endpointOutcome([{ status: 'failed', attempts: 6 }])).toBe('failed');
  });

  it('per event: its worst endpoint', () => {
    expect(worstOutcome(['delivered', 'pending'])).toBe('pending');
    expect(worstOutcome(['failing', 'pending', 'delivered'])).toBe('failing');
    expect(worstOutcome(['delivered', 'failed', 'failing'])).toBe('failed');
    expect(worstOutcome([])).toBe('delivered');
  });
});
