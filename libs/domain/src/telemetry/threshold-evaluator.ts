import type { EntityManager } from 'typeorm';
import type { AlarmRecord } from '../alarms/alarm-record';
import { raiseAlarm } from '../alarms/alarm-writer';
import type { ActiveShipmentLookup } from '../shipments/active-shipment-lookup';
import type { Thresholds } from '../devices/device-settings';
import type { IngestLifecycle } from './ingest-lifecycles';
import type { TelemetryPoint } from './telemetry-point';
import {
  alarmMessage,
  delayMsOf,
  findQualifyingRun,
  limitsOf,
  THRESHOLD_RULES,
  violates,
  type Limits,
  type Sample,
  type ThresholdRule,
} from './threshold-rules';

/** The stored samples of one measurement around the new points, plus the nearest one on each side. */
async function samplesAround(manager: EntityManager, lifecycle: IngestLifecycle, rule: ThresholdRule, from: Date, to: Date): Promise<Sample[]> {
  const column = rule.measurement; // from a fixed list, never from input
  const rows = (await manager.query(
    `(SELECT recorded_at, ${column} AS value FROM telemetry_points
       WHERE device_id = $1 AND lifecycle_id = $2 AND recorded_at < $3 AND ${column} IS NOT NULL
       ORDER BY recorded_at DESC LIMIT 1)
     UNION ALL
     (SELECT recorded_at, ${column} FROM telemetry_points
       WHERE device_id = $1 AND lifecycle_id = $2 AND recorded_at >= $3 AND recorded_at <= $4 AND ${column} IS NOT NULL)
     UNION ALL
     (SELECT recorded_at, ${column} FROM telemetry_points
       WHERE device_id = $1 AND lifecycle_id = $2 AND recorded_at > $4 AND ${column} IS NOT NULL
       ORDER BY recorded_at LIMIT 1)
     ORDER BY recorded_at`,
    [lifecycle.deviceId, lifecycle.id, from.toISOString(), to.toISOString()],
  )) as Array<{ recorded_at: Date; value: number }>;
  return rows.map((row) => ({ at: row.recorded_at.getTime(), value: row.value }));
}

/**
 * Whether an earlier alarm of this type already covers the excursion around `at`: an alarm whose
 * triggering point is joined to `at` by violating samples only. Then resolving that alarm while
 * the excursion goes on does not raise it again.
 */
async function excursionAlreadyAlarmed(manager: EntityManager, lifecycle: IngestLifecycle, rule: ThresholdRule, limits: Limits, at: Date): Promise<boolean> {
  const column = rule.measurement;
  const rows = (await manager.query(
    `SELECT 1 FROM (
        (SELECT triggered_at FROM alarms WHERE lifecycle_id = $1 AND type = $2 AND source = 'THRESHOLD' AND triggered_at <= $3
          ORDER BY triggered_at DESC LIMIT 1)
        UNION ALL
        (SELECT triggered_at FROM alarms WHERE lifecycle_id = $1 AND type = $2 AND source = 'THRESHOLD' AND triggered_at > $3
          ORDER BY triggered_at LIMIT 1)
      ) earlier
      WHERE NOT EXISTS (
        SELECT 1 FROM telemetry_points t
         WHERE t.device_id = $4 AND t.lifecycle_id = $1
           AND t.recorded_at > LEAST(earlier.triggered_at, $3::timestamptz)
           AND t.recorded_at < GREATEST(earlier.triggered_at, $3::timestamptz)
           AND t.${column} IS NOT NULL
           AND NOT (($5::real IS NOT NULL AND t.${column} < $5::real) OR ($6::real IS NOT NULL AND t.${column} > $6::real)))
      LIMIT 1`,
    [lifecycle.id, rule.type, at.toISOString(), lifecycle.deviceId, limits.min, limits.max],
  )) as unknown[];
  return rows.length > 0;
}

export interface ThresholdEvaluation {
  lifecycle: IngestLifecycle;
  thresholds: Thresholds;
  /** Points of this lifecycle inserted by the current batch. */
  points: readonly TelemetryPoint[];
  /** Alarm types the lifecycle has unresolved already. */
  openTypes: ReadonlySet<string>;
}

/**
 * Evaluates the thresholds over the stored points around a batch and raises (through the
 * outbox) each alarm whose condition has held for the delay. Nothing is read unless a new point
 * violates a threshold: a point within limits cannot start an excursion.
 */
export async function evaluateThresholds(manager: EntityManager, evaluation: ThresholdEvaluation, shipments: ActiveShipmentLookup): Promise<AlarmRecord[]> {
  const { lifecycle, thresholds, points, openTypes } = evaluation;
  const raised: AlarmRecord[] = [];
  for (const rule of THRESHOLD_RULES) {
    if (openTypes.has(rule.type) || (rule.sensor && !lifecycle.sensors[rule.sensor])) continue;
    const limits = limitsOf(rule, thresholds);
    if (!limits) continue;
    const fresh = points.filter((p) => p[rule.measurement] !== null);
    if (!fresh.some((p) => violates(p[rule.measurement] as number, limits))) continue;
    const delayMs = delayMsOf(rule, thresholds);
    const times = fresh.map((p) => p.recordedMs);
    const from = new Date(Math.min(...times) - delayMs);
    const to = new Date(Math.max(...times) + delayMs);
    const freshTimes = new Set(times);
    const run = findQualifyingRun(await samplesAround(manager, lifecycle, rule, from, to), (s) => freshTimes.has(s.at), limits, delayMs);
    if (!run) continue;
    const triggeredAt = new Date(run.trigger.at);
    if (await excursionAlreadyAlarmed(manager, lifecycle, rule, limits, triggeredAt)) continue;
    const alarm = await raiseAlarm(manager, {
      accountId: lifecycle.accountId,
      deviceId: lifecycle.deviceId,
      lifecycleId: lifecycle.id,
      shipmentId: await shipments.activeShipmentId(manager, lifecycle.accountId, lifecycle.deviceId),
      type: rule.type,
      severity: rule.severity,
      source: 'THRESHOLD',
      message: alarmMessage(rule, limits, run.trigger.value, delayMs),
      triggeredAt,
    });
    if (alarm) raised.push(alarm);
  }
  return raised;
}
