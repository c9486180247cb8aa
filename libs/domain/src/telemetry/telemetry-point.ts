import { UUID_PATTERN, ZONED_TIMESTAMP_PATTERN } from '../formats';
import { parseBatchMessage } from './batch-message';

/** One measurement of a device (DESIGN §6). Missing measurements are null. */
export interface TelemetryPoint {
  deviceId: string;
  recordedAt: Date;
  temperature: number | null;
  humidity: number | null;
  light: number | null;
  shock: number | null;
  battery: number | null;
  latitude: number | null;
  longitude: number | null;
}

export const MEASUREMENTS = ['temperature', 'humidity', 'light', 'shock', 'battery'] as const;
export type Measurement = (typeof MEASUREMENTS)[number];

/** Physically plausible ranges; anything outside is a broken sensor or a broken gateway. */
const RANGES: Record<Measurement | 'latitude' | 'longitude', [number, number]> = {
  temperature: [-100, 150],
  humidity: [0, 100],
  light: [0, 1_000_000],
  shock: [0, 1000],
  battery: [0, 100],
  latitude: [-90, 90],
  longitude: [-180, 180],
};

const RANGE_ENTRIES = Object.entries(RANGES) as Array<[keyof typeof RANGES, [number, number]]>;
const FIELDS = new Set(['device_id', 'recorded_at', ...Object.keys(RANGES)]);

/** Points stamped further ahead than this are refused: the device clock is wrong. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

export type ParsedPoint = { ok: true; point: TelemetryPoint } | { ok: false; reason: string };

const refuse = (reason: string): ParsedPoint => ({ ok: false, reason });

/** Validates one point as a gateway or the CLI sends it (snake_case JSON). */
export function parseTelemetryPoint(value: unknown, now: Date = new Date()): ParsedPoint {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse('a point must be a JSON object');
  const input = value as Record<string, unknown>;
  const keys = Object.keys(input);
  // Checked without allocating in the common case: this runs for every ingested point.
  if (keys.some((key) => !FIELDS.has(key))) {
    const unknown = keys.filter((key) => !FIELDS.has(key));
    if (unknown.length > 0) return refuse(`unknown field(s): ${unknown.join(', ')}`);
  }
  if (typeof input.device_id !== 'string' || !UUID_PATTERN.test(input.device_id)) return refuse('device_id must be a UUID');
  if (typeof input.recorded_at !== 'string' || !ZONED_TIMESTAMP_PATTERN.test(input.recorded_at)) {
    return refuse('recorded_at must be an ISO 8601 timestamp with a time zone');
  }
  const recordedAt = new Date(input.recorded_at);
  if (Number.isNaN(recordedAt.getTime())) return refuse('recorded_at is not a valid date');
  if (recordedAt.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) return refuse('recorded_at is in the future');
  const values: Partial<Record<keyof typeof RANGES, number | null>> = {};
  for (const [name, [min, max]] of RANGE_ENTRIES) {
    const raw = input[name];
    if (raw === undefined || raw === null) {
      values[name] = null;
      continue;
    }
    if (typeof raw !== 'number' || !Number.isFinite(raw)) return refuse(`${name} must be a number`);
    if (raw < min || raw > max) return refuse(`${name} must be between ${min} and ${max}`);
    values[name] = raw;
  }
  if ((values.latitude === null) !== (values.longitude === null)) return refuse('latitude and longitude come together');
  return {
    ok: true,
    point: {
      deviceId: input.device_id.toLowerCase(),
      recordedAt,
      temperature: values.temperature ?? null,
      humidity: values.humidity ?? null,
      light: values.light ?? null,
      shock: values.shock ?? null,
      battery: values.battery ?? null,
      latitude: values.latitude ?? null,
      longitude: values.longitude ?? null,
    },
  };
}

export const MAX_POINTS_PER_MESSAGE = 10_000;

/** A gateway message: one point, or `{"points": [...]}`. Points are validated later, one by one. */
export function parseIngestMessage(content: Buffer | string): { ok: true; points: unknown[] } | { ok: false; reason: string } {
  const parsed = parseBatchMessage(content, 'points', 'point', MAX_POINTS_PER_MESSAGE);
  return parsed.ok ? { ok: true, points: parsed.items } : parsed;
}
