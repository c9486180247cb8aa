import type { DataSource, EntityManager } from 'typeorm';
import type { AlarmRecord } from '../alarms/alarm-record';
import { loadPresetThresholds } from '../devices/alert-preset-thresholds';
import { effectiveThresholds } from '../devices/device-settings';
import { evaluateGeofences } from './geofence-evaluator';
import { byDevice, lifecycleAt, lockLifecycles, type IngestLifecycle } from './ingest-lifecycles';
import { defaultIngestCollaborators, type IngestCollaborators } from './ingest-wiring';
import { TelemetryPartitions } from './telemetry-partitions';
import { parseTelemetryPoint, type TelemetryPoint } from './telemetry-point';
import { advanceStatus, insertPoints, type StoredPoint } from './telemetry-writer';
import { evaluateThresholds } from './threshold-evaluator';

export interface IngestRejection {
  /** Position of the point in the input. */
  index: number;
  reason: string;
}

export interface IngestResult {
  accepted: number;
  duplicate: number;
  rejected: number;
  rejections: IngestRejection[];
  alarms: AlarmRecord[];
}

export interface IngestOptions {
  /** Points per transaction. */
  batchSize?: number;
  now?: () => Date;
}

export const emptyIngestResult = (): IngestResult => ({ accepted: 0, duplicate: 0, rejected: 0, rejections: [], alarms: [] });

export const NO_OWNER_REASON = 'device unknown, not approved, deleted, or without an owner at recorded_at';

interface IndexedPoint {
  index: number;
  point: TelemetryPoint;
}

/**
 * The one way telemetry enters the system (DESIGN §6), behind the queue consumer and the CLI:
 * validates points, stores them idempotently per (device, recorded_at) in batched inserts,
 * moves the device status forward, evaluates thresholds and geofences, and raises alarms
 * through the outbox — all of a batch in one transaction.
 */
export class TelemetryIngestService {
  private readonly partitions: TelemetryPartitions;
  private readonly batchSize: number;
  private readonly now: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    private readonly collaborators: IngestCollaborators = defaultIngestCollaborators(),
    options: IngestOptions = {},
  ) {
    this.partitions = new TelemetryPartitions(dataSource);
    this.batchSize = options.batchSize ?? 2000;
    this.now = options.now ?? (() => new Date());
  }

  async ingest(inputs: readonly unknown[]): Promise<IngestResult> {
    const result = emptyIngestResult();
    const now = this.now();
    const seen = new Set<string>();
    const valid: IndexedPoint[] = [];
    inputs.forEach((input, index) => {
      const parsed = parseTelemetryPoint(input, now);
      if (!parsed.ok) {
        result.rejections.push({ index, reason: parsed.reason });
        return;
      }
      const key = `${parsed.point.deviceId}|${parsed.point.recordedAt.getTime()}`;
      if (seen.has(key)) {
        result.duplicate++;
        return;
      }
      seen.add(key);
      valid.push({ index, point: parsed.point });
    });
    for (let start = 0; start < valid.length; start += this.batchSize) {
      await this.ingestBatch(valid.slice(start, start + this.batchSize), result);
    }
    result.rejections.sort((a, b) => a.index - b.index);
    result.rejected = result.rejections.length;
    return result;
  }

  private async ingestBatch(batch: IndexedPoint[], result: IngestResult): Promise<void> {
    await this.partitions.ensure(batch.map((b) => b.point.recordedAt));
    const raised = await this.dataSource.transaction(async (manager) => {
      const lifecycles = await lockLifecycles(manager, [...new Set(batch.map((b) => b.point.deviceId))]);
      const lifecyclesByDevice = byDevice(lifecycles);
      const assigned: StoredPoint[] = [];
      for (const { index, point } of batch) {
        const lifecycle = lifecycleAt(lifecyclesByDevice.get(point.deviceId), point.recordedAt);
        if (lifecycle) assigned.push({ ...point, lifecycleId: lifecycle.id });
        else result.rejections.push({ index, reason: NO_OWNER_REASON });
      }
      const inserted = await insertPoints(manager, assigned);
      result.accepted += inserted.length;
      result.duplicate += assigned.length - inserted.length;
      await advanceStatus(manager, inserted);
      return this.evaluate(manager, lifecycles, inserted);
    });
    result.alarms.push(...raised);
  }

  /** Thresholds and geofences of the current lifecycles that received new points. */
  private async evaluate(manager: EntityManager, lifecycles: IngestLifecycle[], inserted: StoredPoint[]): Promise<AlarmRecord[]> {
    const byLifecycle = new Map<string, StoredPoint[]>();
    for (const point of inserted) {
      const points = byLifecycle.get(point.lifecycleId);
      if (points) points.push(point);
      else byLifecycle.set(point.lifecycleId, [point]);
    }
    const current = lifecycles.filter((l) => l.endedAt === null && byLifecycle.has(l.id));
    if (current.length === 0) return [];

    const presets = await loadPresetThresholds(
      manager,
      current.filter((l) => l.alertPresetId).map((l) => ({ accountId: l.accountId, presetId: l.alertPresetId as string })),
    );
    const openRows = (await manager.query(`SELECT lifecycle_id, type FROM alarms WHERE lifecycle_id = ANY($1::uuid[]) AND resolved_at IS NULL`, [
      current.map((l) => l.id),
    ])) as Array<{ lifecycle_id: string; type: string }>;

    const raised: AlarmRecord[] = [];
    const { activeShipments, geofences, crossings } = this.collaborators;
    for (const lifecycle of current) {
      const points = byLifecycle.get(lifecycle.id) ?? [];
      const thresholds = effectiveThresholds(lifecycle.thresholds, lifecycle.alertPresetId ? (presets.get(lifecycle.alertPresetId) ?? null) : null);
      const openTypes = new Set(openRows.filter((r) => r.lifecycle_id === lifecycle.id).map((r) => r.type));
      raised.push(...(await evaluateThresholds(manager, { lifecycle, thresholds, points, openTypes }, activeShipments)));
      if (points.some((p) => p.latitude !== null)) {
        const context = {
          accountId: lifecycle.accountId,
          deviceId: lifecycle.deviceId,
          lifecycleId: lifecycle.id,
          shipmentId: await activeShipments.activeShipmentId(manager, lifecycle.accountId, lifecycle.deviceId),
        };
        raised.push(...(await evaluateGeofences(manager, lifecycle, points, context, geofences, crossings)));
      }
    }
    return raised;
  }
}
