import { parseTypedTime } from './typed-time';

describe('parseTypedTime: one reading of a typed date and time for the panel and the CLI', () => {
  it.each([
    ['2026-11-26T06:00', '2026-11-26T06:00:00.000Z'],
    ['2026-11-26 06:00', '2026-11-26T06:00:00.000Z'],
    [' 2026-11-26T06:00:59 ', '2026-11-26T06:00:59.000Z'],
    ['2026-11-26T06:00:01.250', '2026-11-26T06:00:01.250Z'],
    ['2026-11-26T06:00:01.250999Z', '2026-11-26T06:00:01.250Z'],
    ['2026-11-26T07:30+01:30', '2026-11-26T06:00:00.000Z'],
    ['2026-11-26T01:00-05:00', '2026-11-26T06:00:00.000Z'],
    ['2026-11-26 06:00 UTC', '2026-11-26T06:00:00.000Z'],
    ['2026-11-26 06:00:30 utc', '2026-11-26T06:00:30.000Z'],
    ['2024-02-29T00:00Z', '2024-02-29T00:00:00.000Z'],
  ])('reads %p (no zone: UTC)', (typed, instant) => {
    expect(parseTypedTime(typed)?.toISOString()).toBe(instant);
  });

  it('reads a bare date as its midnight UTC only where asked to (filters)', () => {
    expect(parseTypedTime('2026-11-26', { dateOnly: true })?.toISOString()).toBe('2026-11-26T00:00:00.000Z');
    expect(parseTypedTime('2026-11-26')).toBeNull();
  });

  it.each([
    '', 'yesterday', '1700000000', '8:00', '2026-11-26 8:00', '2026-11-26  06:00', '2026-02-30T00:00', '2025-02-29T00:00', '2026-13-01T00:00',
    '2026-11-26T24:00', '2026-11-26T06:60', '2026-11-26T06:00:60', '1969-12-31T23:59', '2026-11-26T08:00+25:00', '2026-11-26T08:00+01:60',
    '2026-11-26 06:00+01:00 UTC', '2026-11-26 UTC', '2026-11-26T06:00.5',
  ])('refuses %p', (typed) => {
    expect(parseTypedTime(typed, { dateOnly: true })).toBeNull();
  });
});
