import { parseAisMessage, parseAisPosition } from './ais-position';

const NOW = new Date('2025-07-01T12:00:00Z');
const base = { mmsi: '271000123', recorded_at: '2025-07-01T11:00:00Z', latitude: 38.5, longitude: 26.9 };

describe('AIS position parsing', () => {
  it('accepts MMSI and/or IMO with a zoned time and a position; speed and course optional', () => {
    expect(parseAisPosition({ ...base, imo: '9074729', speed_knots: 14.2, course_deg: 359.9 }, NOW)).toEqual({
      ok: true,
      position: { mmsi: '271000123', imo: '9074729', recordedAt: new Date('2025-07-01T11:00:00Z'), latitude: 38.5, longitude: 26.9, speedKnots: 14.2, courseDeg: 359.9 },
    });
    expect(parseAisPosition({ imo: '9074729', recorded_at: '2025-07-01T14:00:00+03:00', latitude: 0, longitude: 0 }, NOW)).toMatchObject({ ok: true, position: { mmsi: null, imo: '9074729' } });
  });

  it.each([
    [{ ...base, mmsi: undefined }, 'mmsi or imo is required'],
    [{ ...base, mmsi: '27100012' }, 'mmsi must be 9 digits'],
    [{ ...base, imo: '9074728' }, 'imo must be a 7-digit IMO number with a valid check digit'],
    [{ ...base, recorded_at: '2025-07-01T11:00:00' }, 'recorded_at must be an ISO 8601 timestamp with a time zone'],
    [{ ...base, recorded_at: '2025-07-01T12:06:00Z' }, 'recorded_at is in the future'],
    [{ ...base, latitude: 91 }, 'latitude must be between -90 and 90'],
    [{ ...base, longitude: '26.9' }, 'longitude must be a number'],
    [{ ...base, speed_knots: -1 }, 'speed_knots must be between 0 and 102.2'],
    [{ ...base, course_deg: 360 }, 'course_deg must be between 0 and 360 (exclusive)'],
    [{ ...base, heading: 3 }, 'unknown field(s): heading'],
    [[base], 'a position must be a JSON object'],
  ])('refuses %j', (input, reason) => {
    expect(parseAisPosition(input, NOW)).toEqual({ ok: false, reason });
  });

  it('reads one position or a batch per message', () => {
    expect(parseAisMessage(JSON.stringify(base))).toEqual({ ok: true, items: [base] });
    expect(parseAisMessage(JSON.stringify({ positions: [base, base] }))).toEqual({ ok: true, items: [base, base] });
    expect(parseAisMessage('{')).toEqual({ ok: false, reason: 'message body is not valid JSON' });
    expect(parseAisMessage('{"positions": []}')).toEqual({ ok: false, reason: '"positions" must be a non-empty array' });
  });
});
