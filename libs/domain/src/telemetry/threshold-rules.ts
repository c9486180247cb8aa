import type { AlarmSeverity, AlarmType } from '../alarms';
import type { SensorName, ThresholdName, Thresholds } from '../devices';
import type { Measurement } from './telemetry-point';

/** How one measurement is judged against the thresholds, and what alarm it raises. */
export interface ThresholdRule {
  type: Exclude<AlarmType, 'GEOFENCE'>;
  measurement: Measurement;
  sensor: SensorName | null;
  min: ThresholdName | null;
  max: ThresholdName | null;
  severity: AlarmSeverity;
  /**
   * Whether the condition must hold for `delay_minutes` first. A shock is an instant event and
   * a low battery does not recover by waiting, so those two alarm at once.
   */
  delayed: boolean;
  label: string;
  unit: string;
}

export const THRESHOLD_RULES: readonly ThresholdRule[] = [
  { type: 'TEMPERATURE', measurement: 'temperature', sensor: 'temperature', min: 'temperature_min', max: 'temperature_max', severity: 'WARNING', delayed: true, label: 'Temperature', unit: '°C' },
  { type: 'HUMIDITY', measurement: 'humidity', sensor: 'humidity', min: 'humidity_min', max: 'humidity_max', severity: 'WARNING', delayed: true, label: 'Humidity', unit: '%RH' },
  { type: 'LIGHT', measurement: 'light', sensor: 'light', min: null, max: 'light_max', severity: 'WARNING', delayed: true, label: 'Light', unit: 'lx' },
  { type: 'SHOCK', measurement: 'shock', sensor: 'shock', min: null, max: 'shock_max', severity: 'CRITICAL', delayed: false, label: 'Shock', unit: 'g' },
  { type: 'BATTERY', measurement: 'battery', sensor: null, min: 'battery_min', max: null, severity: 'WARNING', delayed: false, label: 'Battery', unit: '%' },
];

export interface Limits {
  min: number | null;
  max: number | null;
}

/** The limits of a rule, or null when the thresholds do not monitor that measurement. */
export function limitsOf(rule: ThresholdRule, thresholds: Thresholds): Limits | null {
  const limits = { min: rule.min ? thresholds[rule.min] : null, max: rule.max ? thresholds[rule.max] : null };
  return limits.min === null && limits.max === null ? null : limits;
}

export function violates(value: number, { min, max }: Limits): boolean {
  return (min !== null && value < min) || (max !== null && value > max);
}

export function delayMsOf(rule: ThresholdRule, thresholds: Thresholds): number {
  return rule.delayed ? (thresholds.delay_minutes ?? 0) * 60_000 : 0;
}

export interface Sample {
  at: number;
  value: number;
}

export interface QualifyingRun {
  first: Sample;
  last: Sample;
  /** The earliest sample at which the condition had held for the delay. */
  trigger: Sample;
}

/**
 * The first run of consecutive violating samples that contains a new sample and has lasted at
 * least `delayMs` (from its first to its last sample), or null.
 *
 * `samples` are time ordered and cover [earliest new - delay, latest new + delay] plus the
 * nearest sample on either side of that window. A run that reaches one of those outer samples
 * continues past the window; since the window reaches a full delay from every new sample, such a
 * run is long enough — so these samples decide exactly what the complete history would.
 */
export function findQualifyingRun(samples: readonly Sample[], isNew: (sample: Sample) => boolean, limits: Limits, delayMs: number): QualifyingRun | null {
  let start = -1;
  let hasNew = false;
  for (let i = 0; i <= samples.length; i++) {
    const sample = samples[i];
    if (sample && violates(sample.value, limits)) {
      if (start < 0) {
        start = i;
        hasNew = false;
      }
      hasNew ||= isNew(sample);
      continue;
    }
    if (start >= 0) {
      const first = samples[start];
      const last = samples[i - 1];
      if (hasNew && last.at - first.at >= delayMs) {
        const trigger = samples.slice(start, i).find((s) => s.at - first.at >= delayMs) ?? last;
        return { first, last, trigger };
      }
      start = -1;
    }
  }
  return null;
}

const format = (value: number): string => String(Math.round(value * 100) / 100);

export function alarmMessage(rule: ThresholdRule, limits: Limits, value: number, delayMs: number): string {
  const below = limits.min !== null && value < limits.min;
  const bound = below ? `below the minimum of ${format(limits.min as number)} ${rule.unit}` : `above the maximum of ${format(limits.max as number)} ${rule.unit}`;
  const duration = delayMs > 0 ? ` for at least ${Math.round(delayMs / 60_000)} min` : '';
  return `${rule.label} ${format(value)} ${rule.unit} ${bound}${duration}.`;
}
