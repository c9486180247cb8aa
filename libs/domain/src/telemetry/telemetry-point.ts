import { UUID_PATTERN, ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';
import { parseBatchMessage } from './batch-message';

/** One measurement of a device (DESIGN §6). Missing measurements are null. */
export interface TelemetryPoint {
  deviceId: string;
  /** Epoch milliseconds: numbers are compared and sent without a Date per point. */
  recordedMs: number;
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

const FIELDS = new Set(['device_id', 'recorded_at', ...Object.keys(RANGES)]);

/** Points stamped further ahead than this are refused: the device clock is wrong. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/**
 * Points stamped before this are refused (2000-01-01T00:00:00Z): a device clock that reset, or a
 * message crafted to reach far months — each month is a partition.
 */
export const EARLIEST_RECORDED_AT_MS = Date.UTC(2000, 0, 1);

/** Why a value is not a valid `name` measurement, or null when it is (a number in range, null or absent). */
function measurementFault(raw: unknown, name: keyof typeof RANGES): string | null {
  if (raw === undefined || raw === null) return null;
  const [min, max] = RANGES[name];
  if (typeof raw !== 'number' || !Number.isFinite(raw)) return `${name} must be a number`;
  if (raw < min || raw > max) return `${name} must be between ${min} and ${max}`;
  return null;
}

/**
 * The last valid recorded_at text and its instant: a gateway message stamps all its devices'
 * points alike, so most points skip the pattern and Date.parse (what Date.parse returns for a
 * text never changes; the future and earliest bounds are still checked per point).
 */
const last = { recordedAt: '', recordedMs: 0 };

/** Valid device ids as sent → lowercased; bounded, cleared when full (a cache, not a registry). */
const deviceIds = new Map<string, string>();
const MAX_REMEMBERED_DEVICE_IDS = 10_000;

/** The device id lowercased, or null when it is not a UUID. */
function knownDeviceId(raw: string): string | null {
  const known = deviceIds.get(raw);
  if (known !== undefined) return known;
  if (!UUID_PATTERN.test(raw)) return null;
  if (deviceIds.size >= MAX_REMEMBERED_DEVICE_IDS) deviceIds.clear();
  const id = raw.toLowerCase();
  deviceIds.set(raw, id);
  return id;
}

const orNull = (raw: unknown): number | null => (raw === undefined ? null : (raw as number | null));

/**
 * Validates one point as a gateway or the CLI sends it (snake_case JSON): the point, or the reason
 * it is refused. Runs for every ingested point, so it allocates nothing but the point itself.
 */
export function parseTelemetryPoint(value: unknown, nowMs: number = Date.now()): TelemetryPoint | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a point must be a JSON object';
  const input = value as Record<string, unknown>;
  for (const key in input) {
    if (!FIELDS.has(key)) return `unknown field(s): ${Object.keys(input).filter((k) => !FIELDS.has(k)).join(', ')}`;
  }
  const rawDeviceId = input.device_id;
  if (typeof rawDeviceId !== 'string') return 'device_id must be a UUID';
  const deviceId = knownDeviceId(rawDeviceId);
  if (deviceId === null) return 'device_id must be a UUID';
  const recordedAt = input.recorded_at;
  if (typeof recordedAt !== 'string') return 'recorded_at must be an ISO 8601 timestamp with a time zone';
  let recordedMs: number;
  if (recordedAt === last.recordedAt) {
    recordedMs = last.recordedMs;
  } else {
    if (!ZONED_TIMESTAMP_PATTERN.test(recordedAt)) return 'recorded_at must be an ISO 8601 timestamp with a time zone';
    recordedMs = Date.parse(recordedAt);
    if (Number.isNaN(recordedMs)) return 'recorded_at is not a valid date';
    last.recordedAt = recordedAt;
    last.recordedMs = recordedMs;
  }
  if (recordedMs > nowMs + FUTURE_TOLERANCE_MS) return 'recorded_at is in the future';
  if (recordedMs < EARLIEST_RECORDED_AT_MS) return 'recorded_at is before 2000-01-01';
  const { temperature, humidity, light, shock, battery, latitude, longitude } = input;
  const fault =
    measurementFault(temperature, 'temperature') ??
    measurementFault(humidity, 'humidity') ??
    measurementFault(light, 'light') ??
    measurementFault(shock, 'shock') ??
    measurementFault(battery, 'battery') ??
    measurementFault(latitude, 'latitude') ??
    measurementFault(longitude, 'longitude');
  if (fault !== null) return fault;
  if ((latitude == null) !== (longitude == null)) return 'latitude and longitude come together';
  return {
    deviceId,
    recordedMs,
    temperature: orNull(temperature),
    humidity: orNull(humidity),
    light: orNull(light),
    shock: orNull(shock),
    battery: orNull(battery),
    latitude: orNull(latitude),
    longitude: orNull(longitude),
  };
}

export const MAX_POINTS_PER_MESSAGE = 10_000;

/** A gateway message: one point, or `{"points": [...]}`. Points are validated later, one by one. */
export function parseIngestMessage(content: Buffer | string): { ok: true; points: unknown[] } | { ok: false; reason: string } {
  const parsed = parseBatchMessage(content, 'points', 'point', MAX_POINTS_PER_MESSAGE);
  return parsed.ok ? { ok: true, points: parsed.items } : parsed;
}
