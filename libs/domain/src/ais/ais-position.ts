import { isValidImoNumber, MMSI_PATTERN, ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';
import { EARLIEST_RECORDED_AT_MS, FUTURE_TOLERANCE_MS, parseBatchMessage, type BatchMessage } from '../telemetry';

/** One AIS position report of a vessel, as a feed adapter or the CLI sends it (snake_case JSON). */
export interface AisPosition {
  mmsi: string | null;
  imo: string | null;
  recordedAt: Date;
  latitude: number;
  longitude: number;
  speedKnots: number | null;
  courseDeg: number | null;
}

const FIELDS = new Set(['mmsi', 'imo', 'recorded_at', 'latitude', 'longitude', 'speed_knots', 'course_deg']);

export type ParsedAisPosition = { ok: true; position: AisPosition } | { ok: false; reason: string };

const refuse = (reason: string): ParsedAisPosition => ({ ok: false, reason });

function number(value: unknown, name: string, min: number, max: number, maxExclusive = false): number | string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return `${name} must be a number`;
  if (value < min || value > max || (maxExclusive && value === max)) return `${name} must be between ${min} and ${max}${maxExclusive ? ' (exclusive)' : ''}`;
  return value;
}

/** Validates one position: a vessel identifier (MMSI and/or IMO), a zoned time, a position. */
export function parseAisPosition(value: unknown, now: Date = new Date()): ParsedAisPosition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return refuse('a position must be a JSON object');
  const input = value as Record<string, unknown>;
  const unknown = Object.keys(input).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) return refuse(`unknown field(s): ${unknown.join(', ')}`);
  const mmsi = input.mmsi ?? null;
  const imo = input.imo ?? null;
  if (mmsi !== null && (typeof mmsi !== 'string' || !MMSI_PATTERN.test(mmsi))) return refuse('mmsi must be 9 digits');
  if (imo !== null && !isValidImoNumber(imo)) return refuse('imo must be a 7-digit IMO number with a valid check digit');
  if (mmsi === null && imo === null) return refuse('mmsi or imo is required');
  if (typeof input.recorded_at !== 'string' || !ZONED_TIMESTAMP_PATTERN.test(input.recorded_at)) {
    return refuse('recorded_at must be an ISO 8601 timestamp with a time zone');
  }
  const recordedAt = new Date(input.recorded_at);
  if (Number.isNaN(recordedAt.getTime())) return refuse('recorded_at is not a valid date');
  if (recordedAt.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) return refuse('recorded_at is in the future');
  if (recordedAt.getTime() < EARLIEST_RECORDED_AT_MS) return refuse('recorded_at is before 2000-01-01');
  const latitude = number(input.latitude, 'latitude', -90, 90);
  if (typeof latitude === 'string') return refuse(latitude);
  const longitude = number(input.longitude, 'longitude', -180, 180);
  if (typeof longitude === 'string') return refuse(longitude);
  let speedKnots: number | null = null;
  if (input.speed_knots !== undefined && input.speed_knots !== null) {
    const speed = number(input.speed_knots, 'speed_knots', 0, 102.2);
    if (typeof speed === 'string') return refuse(speed);
    speedKnots = speed;
  }
  let courseDeg: number | null = null;
  if (input.course_deg !== undefined && input.course_deg !== null) {
    const course = number(input.course_deg, 'course_deg', 0, 360, true);
    if (typeof course === 'string') return refuse(course);
    courseDeg = course;
  }
  return { ok: true, position: { mmsi: mmsi as string | null, imo: imo as string | null, recordedAt, latitude, longitude, speedKnots, courseDeg } };
}

export const MAX_POSITIONS_PER_MESSAGE = 10_000;

/** A feed message: one position, or `{"positions": [...]}`. Positions are validated later, one by one. */
export function parseAisMessage(content: Buffer | string): BatchMessage {
  return parseBatchMessage(content, 'positions', 'position', MAX_POSITIONS_PER_MESSAGE);
}
