import { parseIngestMessage, parseTelemetryPoint } from './telemetry-point';

const DEVICE = '0190a000-0000-7000-8000-00000000abcd';
const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('parseTelemetryPoint', () => {
  it('accepts a full point and normalises it', () => {
    const parsed = parseTelemetryPoint(
      { device_id: DEVICE.toUpperCase(), recorded_at: '2025-06-01T14:00:00.123+02:00', temperature: -18.5, humidity: 40, light: 0, shock: 0.02, battery: 100, latitude: -33.9, longitude: 151.2 },
      NOW,
    );
    expect(parsed).toEqual({
      deviceId: DEVICE, recordedMs: Date.parse('2025-06-01T12:00:00.123Z'), temperature: -18.5, humidity: 40, light: 0, shock: 0.02, battery: 100, latitude: -33.9, longitude: 151.2,
    });
  });

  it('accepts a heartbeat without measurements, and explicit nulls', () => {
    expect(parseTelemetryPoint({ device_id: DEVICE, recorded_at: '2025-06-01T11:00:00Z', temperature: null }, NOW)).toMatchObject({ temperature: null, battery: null });
  });

  it.each([
    [{ device_id: DEVICE, recorded_at: '2025-06-01T12:04:59Z' }, null],
    [{ device_id: DEVICE, recorded_at: '2025-06-01T12:05:01Z' }, 'recorded_at is in the future'],
    [{ device_id: DEVICE, recorded_at: '1999-12-31T23:59:59.999Z' }, 'recorded_at is before 2000-01-01'],
    [{ device_id: DEVICE, recorded_at: '0001-01-01T00:00:00Z' }, 'recorded_at is before 2000-01-01'],
    [{ device_id: DEVICE, recorded_at: '2025-06-01' }, 'recorded_at must be an ISO 8601 timestamp with a time zone'],
    [{ device_id: DEVICE, recorded_at: '2025-13-01T00:00:00Z' }, 'recorded_at is not a valid date'],
    [{ device_id: DEVICE, recorded_at: 1717243200 }, 'recorded_at must be an ISO 8601 timestamp with a time zone'],
    [{ recorded_at: '2025-06-01T11:00:00Z' }, 'device_id must be a UUID'],
    [{ device_id: DEVICE, recorded_at: '2025-06-01T11:00:00Z', battery: 101 }, 'battery must be between 0 and 100'],
    [{ device_id: DEVICE, recorded_at: '2025-06-01T11:00:00Z', longitude: 181, latitude: 0 }, 'longitude must be between -180 and 180'],
    [{ device_id: DEVICE, recorded_at: '2025-06-01T11:00:00Z', temperature: Number.NaN }, 'temperature must be a number'],
    [[DEVICE], 'a point must be a JSON object'],
    [null, 'a point must be a JSON object'],
  ])('%j → %s', (input, reason) => {
    const parsed = parseTelemetryPoint(input, NOW);
    if (reason === null) expect(typeof parsed).toBe('object');
    else expect(parsed).toBe(reason);
  });
});

describe('parseTelemetryPoint with repeated device ids and times (remembered between points)', () => {
  it('gives the same answers the second time: bounds still judged per point, invalid texts never remembered', () => {
    const at = '2025-06-01T12:03:00Z';
    for (let i = 0; i < 2; i++) {
      expect(parseTelemetryPoint({ device_id: DEVICE.toUpperCase(), recorded_at: at }, NOW)).toMatchObject({ deviceId: DEVICE, recordedMs: Date.parse(at) });
      // The same text judged against an earlier clock is now in the future.
      expect(parseTelemetryPoint({ device_id: DEVICE, recorded_at: at }, NOW - 10 * 60_000)).toBe('recorded_at is in the future');
      expect(parseTelemetryPoint({ device_id: `${DEVICE}x`, recorded_at: at }, NOW)).toBe('device_id must be a UUID');
      expect(parseTelemetryPoint({ device_id: DEVICE, recorded_at: '2025-13-01T00:00:00Z' }, NOW)).toBe('recorded_at is not a valid date');
      expect(parseTelemetryPoint({ device_id: DEVICE, recorded_at: '2025-06-01' }, NOW)).toBe('recorded_at must be an ISO 8601 timestamp with a time zone');
    }
  });
});

describe('parseIngestMessage', () => {
  it('reads one point or a batch', () => {
    expect(parseIngestMessage('{"device_id": "x"}')).toEqual({ ok: true, points: [{ device_id: 'x' }] });
    expect(parseIngestMessage(Buffer.from('{"points": [{"a": 1}, 2]}'))).toEqual({ ok: true, points: [{ a: 1 }, 2] });
  });

  it.each([
    ['', 'message body is not valid JSON'],
    ['[]', 'message must be a point object or {"points": [...]}'],
    ['"text"', 'message must be a point object or {"points": [...]}'],
    ['{"points": {}}', '"points" must be a non-empty array'],
    ['{"points": [], "gateway": "g1"}', 'a batch message carries only "points"'],
    [JSON.stringify({ points: Array.from({ length: 10_001 }, () => ({})) }), '"points" holds at most 10000 points'],
  ])('refuses %s', (body, reason) => {
    expect(parseIngestMessage(body)).toEqual({ ok: false, reason });
  });
});
