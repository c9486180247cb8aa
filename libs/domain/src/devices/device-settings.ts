/** Sensor usage flags of a device lifecycle. */
export const SENSOR_NAMES = ['temperature', 'humidity', 'light', 'shock', 'location'] as const;
export type SensorName = (typeof SENSOR_NAMES)[number];
export type Sensors = Record<SensorName, boolean>;

export const THRESHOLD_NAMES = [
  'temperature_min',
  'temperature_max',
  'humidity_min',
  'humidity_max',
  'light_max',
  'shock_max',
  'battery_min',
  'delay_minutes',
] as const;
export type ThresholdName = (typeof THRESHOLD_NAMES)[number];
/** null: not monitored (or, for delay_minutes, no delay of its own). */
export type Thresholds = Record<ThresholdName, number | null>;

/** Bounds shared by the API validation and the database checks. */
export const INTERVAL_BOUNDS = {
  measurement_interval_s: { min: 10, max: 86_400 },
  transmission_interval_s: { min: 60, max: 86_400 },
} as const;

export const THRESHOLD_BOUNDS: Record<ThresholdName, { min: number; max: number; unit: string }> = {
  temperature_min: { min: -100, max: 100, unit: '°C' },
  temperature_max: { min: -100, max: 100, unit: '°C' },
  humidity_min: { min: 0, max: 100, unit: '%RH' },
  humidity_max: { min: 0, max: 100, unit: '%RH' },
  light_max: { min: 0, max: 200_000, unit: 'lx' },
  shock_max: { min: 0, max: 100, unit: 'g' },
  battery_min: { min: 0, max: 100, unit: '%' },
  delay_minutes: { min: 0, max: 1440, unit: 'min' },
};

export const DEFAULT_SENSORS: Sensors = { temperature: true, humidity: true, light: true, shock: true, location: true };

export const EMPTY_THRESHOLDS: Thresholds = Object.fromEntries(THRESHOLD_NAMES.map((name) => [name, null])) as Thresholds;

/** Normalises the stored jsonb (keys may be missing) into a complete record. */
export function toThresholds(stored: unknown): Thresholds {
  const source = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const result = { ...EMPTY_THRESHOLDS };
  for (const name of THRESHOLD_NAMES) {
    const value = source[name];
    if (typeof value === 'number' && Number.isFinite(value)) result[name] = value;
    else if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) result[name] = Number(value);
  }
  return result;
}

export function toSensors(stored: unknown): Sensors {
  const source = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const result = { ...DEFAULT_SENSORS };
  for (const name of SENSOR_NAMES) if (typeof source[name] === 'boolean') result[name] = source[name];
  return result;
}

/**
 * What ingestion evaluates: the device's own value where it has one, otherwise its alert
 * preset's. A device can so tighten a single limit of a shared preset.
 */
export function effectiveThresholds(own: Thresholds, preset: Thresholds | null): Thresholds {
  if (!preset) return own;
  const result = { ...own };
  for (const name of THRESHOLD_NAMES) if (result[name] === null) result[name] = preset[name];
  return result;
}

/** Cross-field rules: a min above its max can never be satisfied. Returns the offending field names. */
export function inconsistentThresholds(thresholds: Thresholds): Array<{ field: ThresholdName; message: string }> {
  const problems: Array<{ field: ThresholdName; message: string }> = [];
  for (const metric of ['temperature', 'humidity'] as const) {
    const min = thresholds[`${metric}_min`];
    const max = thresholds[`${metric}_max`];
    if (min !== null && max !== null && min > max) {
      problems.push({ field: `${metric}_min`, message: `${metric}_min must not be greater than ${metric}_max` });
    }
  }
  return problems;
}
