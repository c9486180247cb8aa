import type { DataSource } from 'typeorm';
import { parseRecoverySince, WebhookRecovery } from './recovery';
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

  it('accepts the panel\'s own way of writing a time: "2026-11-26 06:00 UTC"', () => {
    expect(parseRecoverySince('2026-11-26 06:00 UTC').toISOString()).toBe('2026-11-26T06:00:00.000Z');
    expect(parseRecoverySince('2026-11-26 06:00:30 utc').toISOString()).toBe('2026-11-26T06:00:30.000Z');
    expect(() => parseRecoverySince('2026-11-26 06:00+01:00 UTC')).toThrow(WebhookInputError);
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

describe('WebhookRecovery.presets', () => {
  const now = new Date('2026-11-28T09:41:37.500Z');
  const recovery = (retentionDays: number) => new WebhookRecovery({} as DataSource, { retentionDays, now: () => now });

  it('offers the last hour, since the endpoint started failing, and the last 24 hours, each to the minute', () => {
    expect(recovery(30).presets({ since: '2026-11-28T02:11:00.000Z', fromFailures: true })).toEqual([
      { key: 'last-hour', since: '2026-11-28T08:41:00.000Z' },
      { key: 'failing-since', since: '2026-11-28T02:11:00.000Z' },
      { key: 'last-24-hours', since: '2026-11-27T09:41:00.000Z' },
    ]);
  });

  it('leaves out "since it started failing" when nothing failed, and keeps 24 hours within a one-day retention', () => {
    expect(recovery(1).presets({ since: '2026-11-27T09:41:00.000Z', fromFailures: false })).toEqual([
      { key: 'last-hour', since: '2026-11-28T08:41:00.000Z' },
      { key: 'last-24-hours', since: '2026-11-27T09:42:00.000Z' },
    ]);
  });

  it('keeps the time of a followed choice whose link was shown before the minute turned, and only then', () => {
    const none = { since: '2026-11-28T02:11:00.000Z', fromFailures: false };
    // The link was shown at 09:40:59 and followed at 09:41:37: still the choice the user made.
    expect(recovery(30).presets(none, { key: 'last-24-hours', since: '2026-11-27T09:40:00.000Z' })).toEqual([
      { key: 'last-hour', since: '2026-11-28T08:41:00.000Z' },
      { key: 'last-24-hours', since: '2026-11-27T09:40:00.000Z' },
    ]);
    // Too old, in the future, or another choice's key: the choice's own time now.
    for (const since of ['2026-11-27T09:35:00.000Z', '2026-11-27T09:42:00.000Z']) {
      expect(recovery(30).presets(none, { key: 'last-24-hours', since })[1]).toEqual({ key: 'last-24-hours', since: '2026-11-27T09:41:00.000Z' });
    }
    expect(recovery(30).presets(none, { key: 'last-hour', since: '2026-11-27T09:40:00.000Z' })).toEqual([
      { key: 'last-hour', since: '2026-11-28T08:41:00.000Z' },
      { key: 'last-24-hours', since: '2026-11-27T09:41:00.000Z' },
    ]);
  });

  it('never keeps a followed time from before the retention period', () => {
    // One-day retention: the earliest is 2026-11-27T09:41:37.5Z, so the 24-hour choice is 09:42.
    expect(recovery(1).presets({ since: '2026-11-28T02:11:00.000Z', fromFailures: false }, { key: 'last-24-hours', since: '2026-11-27T09:41:00.000Z' })[1]).toEqual({
      key: 'last-24-hours',
      since: '2026-11-27T09:42:00.000Z',
    });
  });
});
