import { type DomainError } from '../errors';
import { bucketWindow } from './telemetry-buckets';
import { resolveRange } from './telemetry-range';

const NOW = new Date('2025-06-01T12:00:00Z');
const H = 3_600_000;

function refusal(query: { from?: string; to?: string }): DomainError | null {
  try {
    resolveRange(query, NOW, 31);
    return null;
  } catch (error) {
    return error as DomainError;
  }
}

describe('resolveRange', () => {
  it('defaults to the 24 hours before `to`, and `to` to now', () => {
    expect(resolveRange({}, NOW, 31)).toEqual({ from: new Date(NOW.getTime() - 24 * H), to: NOW });
    expect(resolveRange({ to: '2025-05-01T00:00:00Z' }, NOW, 31)).toEqual({ from: new Date('2025-04-30T00:00:00Z'), to: new Date('2025-05-01T00:00:00Z') });
    expect(resolveRange({ from: '2025-05-31T00:00:00Z' }, NOW, 31)).toEqual({ from: new Date('2025-05-31T00:00:00Z'), to: NOW });
  });

  it('allows exactly the maximum and refuses more with range_too_large', () => {
    expect(refusal({ from: '2025-05-01T12:00:00Z', to: '2025-06-01T12:00:00Z' })).toBeNull();
    expect(refusal({ from: '2025-05-01T11:59:59.999Z', to: '2025-06-01T12:00:00Z' })).toMatchObject({ code: 'range_too_large' });
  });

  it('refuses an empty or inverted range', () => {
    expect(refusal({ from: '2025-06-01T12:00:00Z', to: '2025-06-01T12:00:00Z' })).toMatchObject({ code: 'validation_failed' });
    expect(refusal({ from: '2025-06-02T00:00:00Z' })).toMatchObject({ code: 'validation_failed' });
  });
});

describe('bucketWindow', () => {
  it('aligns to the UTC epoch, clips to the range and caps the count', () => {
    const w = bucketWindow(H, new Date('2025-06-01T10:20:00Z'), new Date('2025-06-01T13:10:00Z'), 10);
    expect(w).toEqual({
      first: new Date('2025-06-01T10:00:00Z'),
      last: new Date('2025-06-01T13:00:00Z'),
      pointsFrom: new Date('2025-06-01T10:20:00Z'),
      pointsTo: new Date('2025-06-01T13:10:00Z'),
    });
    expect(bucketWindow(H, new Date('2025-06-01T10:20:00Z'), new Date('2025-06-01T13:10:00Z'), 2)).toMatchObject({
      last: new Date('2025-06-01T11:00:00Z'),
      pointsTo: new Date('2025-06-01T12:00:00Z'),
    });
    expect(bucketWindow(H, new Date('2025-06-01T13:00:00Z'), new Date('2025-06-01T13:00:00Z'), 2)).toBeNull();
  });
});
