import type { EntityManager } from 'typeorm';
import type { Db } from '@app/database/sql';
import { type AlarmRecord, raiseAlarm } from '../alarms';
import type { ActiveShipmentLookup } from './active-shipment-lookup';
import type { Thresholds } from '../devices';
import type { IngestLifecycle } from './ingest-lifecycles';
import type { TelemetryPoint } from './telemetry-point';
import { excursionAlreadyAlarmed, measurementSamplesAround } from './telemetry.repository';
import {
  alarmMessage,
  delayMsOf,
  findQualifyingRun,
  limitsOf,
  THRESHOLD_RULES,
  violates,
  type Sample,
  type ThresholdRule,
} from './threshold-rules';

/** The stored samples of one measurement around the new points, plus the nearest one on each side. */
async function samplesAround(manager: Db, lifecycle: IngestLifecycle, rule: ThresholdRule, from: Date, to: Date): Promise<Sample[]> {
  const rows = await measurementSamplesAround(manager, rule.measurement, lifecycle, from, to);
  return rows.map((row) => ({ at: row.recorded_at.getTime(), value: row.value }));
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
    // Whether an earlier alarm of this type already covers the excursion around the trigger: an
    // alarm whose triggering point is joined to it by violating samples only. Then resolving that
    // alarm while the excursion goes on does not raise it again.
    if (await excursionAlreadyAlarmed(manager, rule.measurement, lifecycle, rule.type, limits, triggeredAt)) continue;
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
