import { parseRecoverySince } from './recovery';
import { WebhookInputError } from './endpoints.errors';

describe('parseRecoverySince', () => {
  it('reads a datetime-local value (no zone) as UTC, and ISO 8601 times with a zone as given', () => {
    expect(parseRecoverySince('2026-11-26T06:00').toISOString()).toBe('2026-11-26T06:00:00.000Z');
    expect(parseRecoverySince(' 2026-11-26T06:00:59 ').toISOString()).toBe('2026-11-26T06:00:59.000Z');
    expect(parseRecoverySince('2026-11-26T06:00:01.250').toISOString()).toBe('2026-11-26T06:00:01.250Z');
    expect(parseRecoverySince('2026-11-26T06:00:01.250999Z').toISOString()).toBe('2026-11-26T06:00:01.250Z');
    expect(parseRecoverySince('2026-11-26T07:30+01:30').toISOString()).toBe('2026-11-26T06:00:00.000Z');
    expect(parseRecoverySince('2026-11-26 06:00').toISOString()).toBe('2026-11-26T06:00:00.000Z');
    expect(parseRecoverySince('2024-02-29T00:00Z').toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });

  it.each(['', 'yesterday', '2026-11-26', '2026-11-26  06:00', '2026-02-30T00:00', '2026-13-01T00:00', '2026-11-26T24:00', '2026-11-26T06:60', '1700000000'])(
    'refuses %p as a since field problem',
    (value) => {
      expect(() => parseRecoverySince(value)).toThrow(WebhookInputError);
      try {
        parseRecoverySince(value);
      } catch (error) {
        expect((error as WebhookInputError).field).toBe('since');
      }
    },
  );
});
