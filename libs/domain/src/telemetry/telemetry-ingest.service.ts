import type { DataSource, EntityManager } from 'typeorm';
import type { AlarmRecord } from '../alarms';
import { loadPresetThresholds, effectiveThresholds } from '../devices';
import { evaluateGeofences } from './geofence-evaluator';
import { BatchActiveShipments } from './active-shipment-lookup';
import type { GeofenceCrossingSink } from './geofence-source';
import { byDevice, lifecycleAt, lockLifecycles, type IngestLifecycle } from './ingest-lifecycles';
import type { IngestCollaborators } from './ingest-collaborators';
import { TelemetryPartitions } from './telemetry-partitions';
import { parseTelemetryPoint, type TelemetryPoint } from './telemetry-point';
import { advanceStatus, insertPoints } from './telemetry-writer';
import { evaluateThresholds } from './threshold-evaluator';
import { openAlarmTypeRows } from './telemetry.repository';

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

/**
 * Points per transaction. Per-lifecycle work (lock, status update, threshold and geofence checks)
 * is paid once per transaction, so large transactions amortise it over more points.
 */
export const INGEST_TRANSACTION_POINTS = 10_000;

export const emptyIngestResult = (): IngestResult => ({ accepted: 0, duplicate: 0, rejected: 0, rejections: [], alarms: [] });

export const NO_OWNER_REASON = 'device unknown, not approved, deleted, or without an owner at recorded_at';

/**
 * Points validated as they are added, waiting to be stored by TelemetryIngestService.store: the
 * first, CPU-only half of ingestion, so that a caller (the queue consumer) can validate the next
 * messages while the previous ones are being stored. Indexes count across everything added.
 */
export class TelemetryIngestBatch {
  /** Valid points, in the order added; `indexes[i]` is the input position of `points[i]`. */
  readonly points: TelemetryPoint[] = [];
  readonly indexes: number[] = [];
  readonly rejections: IngestRejection[] = [];
  private added = 0;

  constructor(private readonly now: () => Date) {}

  /** Validates and appends inputs (`recorded_at` in the future is judged against now); returns the index of the first of them. */
  add(inputs: readonly unknown[]): number {
    const start = this.added;
    const nowMs = this.now().getTime();
    for (let i = 0; i < inputs.length; i++) {
      const parsed = parseTelemetryPoint(inputs[i], nowMs);
      if (typeof parsed === 'string') {
        this.rejections.push({ index: start + i, reason: parsed });
      } else {
        this.points.push(parsed);
        this.indexes.push(start + i);
      }
    }
    this.added += inputs.length;
    return start;
  }

  /** How many inputs were added. */
  get size(): number {
    return this.added;
  }
}

/** What one transaction stores: the points that have an owner, grouped by their lifecycle. */
interface Assignment {
  rows: TelemetryPoint[];
  lifecycleIds: string[];
  byLifecycle: Map<string, TelemetryPoint[]>;
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
    private readonly collaborators: IngestCollaborators,
    options: IngestOptions = {},
  ) {
    this.partitions = new TelemetryPartitions(dataSource);
    this.batchSize = options.batchSize ?? INGEST_TRANSACTION_POINTS;
    this.now = options.now ?? (() => new Date());
  }

  async ingest(inputs: readonly unknown[]): Promise<IngestResult> {
    const batch = this.batch();
    batch.add(inputs);
    return this.store(batch);
  }

  /** An empty batch to add inputs to. */
  batch(): TelemetryIngestBatch {
    return new TelemetryIngestBatch(this.now);
  }

  /**
   * Stores a batch's valid points, `batchSize` per transaction. A point repeated within the batch
   * counts as a duplicate (the first one is stored): the INSERT itself skips the repetitions.
   */
  async store(batch: TelemetryIngestBatch): Promise<IngestResult> {
    const result = emptyIngestResult();
    result.rejections.push(...batch.rejections);
    const unowned = new Set<string>();
    for (let start = 0; start < batch.points.length; start += this.batchSize) {
      const end = Math.min(start + this.batchSize, batch.points.length);
      await this.storeSlice(batch.points.slice(start, end), batch.indexes.slice(start, end), result, unowned);
    }
    result.rejections.sort((a, b) => a.index - b.index);
    result.rejected = result.rejections.length;
    return result;
  }

  private async storeSlice(points: TelemetryPoint[], indexes: number[], result: IngestResult, unowned: Set<string>): Promise<void> {
    await this.ensurePartitions(points);
    const raised = await this.dataSource.transaction(async (manager) => {
      const lifecycles = await lockLifecycles(manager, [...new Set(points.map((p) => p.deviceId))]);
      const assignment = this.assign(lifecycles, points, indexes, result, unowned);
      const inserted = await insertPoints(manager, assignment.rows, assignment.lifecycleIds);
      if (inserted !== null) this.keepInserted(assignment, inserted);
      const accepted = inserted === null ? assignment.rows.length : inserted.size;
      result.accepted += accepted;
      result.duplicate += assignment.rows.length - accepted;
      await advanceStatus(manager, assignment.byLifecycle);
      return this.evaluate(manager, lifecycles, assignment.byLifecycle);
    });
    result.alarms.push(...raised);
  }

  /**
   * Creates the monthly partitions the slice needs — only for points of a device that had an owner
   * then: a message for an unknown device, however many months it spans, creates none. (A point
   * whose owner appears between this check and the transaction fails the slice, which is retried.)
   */
  private async ensurePartitions(points: TelemetryPoint[]): Promise<void> {
    const instants = points.map((p) => p.recordedMs);
    if (!this.partitions.hasUnknownMonth(instants)) return;
    const owners = byDevice(await lockLifecycles(this.dataSource.manager, [...new Set(points.map((p) => p.deviceId))], false));
    await this.partitions.ensureMs(points.filter((p) => lifecycleAt(owners.get(p.deviceId), p.recordedMs) !== null).map((p) => p.recordedMs));
  }

  /**
   * Each point's lifecycle; points without one are refused. A repetition of a refused point
   * within the same ingest counts as a duplicate, not as another refusal.
   */
  private assign(lifecycles: IngestLifecycle[], points: TelemetryPoint[], indexes: number[], result: IngestResult, unowned: Set<string>): Assignment {
    const lifecyclesByDevice = byDevice(lifecycles);
    const assignment: Assignment = { rows: [], lifecycleIds: [], byLifecycle: new Map() };
    for (let i = 0; i < points.length; i++) {
      const point = points[i];
      const lifecycle = lifecycleAt(lifecyclesByDevice.get(point.deviceId), point.recordedMs);
      if (!lifecycle) {
        const key = `${point.deviceId}|${point.recordedMs}`;
        if (unowned.has(key)) {
          result.duplicate++;
        } else {
          unowned.add(key);
          result.rejections.push({ index: indexes[i], reason: NO_OWNER_REASON });
        }
        continue;
      }
      assignment.rows.push(point);
      assignment.lifecycleIds.push(lifecycle.id);
      const group = assignment.byLifecycle.get(lifecycle.id);
      if (group) group.push(point);
      else assignment.byLifecycle.set(lifecycle.id, [point]);
    }
    return assignment;
  }

  /** Narrows the groups to the rows the INSERT stored (the others were duplicates). */
  private keepInserted(assignment: Assignment, inserted: ReadonlySet<number>): void {
    const byLifecycle = new Map<string, TelemetryPoint[]>();
    for (let i = 0; i < assignment.rows.length; i++) {
      if (!inserted.has(i)) continue;
      const group = byLifecycle.get(assignment.lifecycleIds[i]);
      if (group) group.push(assignment.rows[i]);
      else byLifecycle.set(assignment.lifecycleIds[i], [assignment.rows[i]]);
    }
    assignment.byLifecycle = byLifecycle;
  }

  /** Thresholds and geofences of the current lifecycles that received new points. */
  private async evaluate(manager: EntityManager, lifecycles: IngestLifecycle[], byLifecycle: ReadonlyMap<string, readonly TelemetryPoint[]>): Promise<AlarmRecord[]> {
    const current = lifecycles.filter((l) => l.endedAt === null && byLifecycle.has(l.id));
    if (current.length === 0) return [];

    const presets = await loadPresetThresholds(
      manager,
      current.filter((l) => l.alertPresetId).map((l) => ({ accountId: l.accountId, presetId: l.alertPresetId as string })),
    );
    const openRows = await openAlarmTypeRows(manager, current.map((l) => l.id));
    const openTypesOf = new Map<string, Set<string>>();
    for (const row of openRows) {
      const types = openTypesOf.get(row.lifecycle_id);
      if (types) types.add(row.type);
      else openTypesOf.set(row.lifecycle_id, new Set([row.type]));
    }

    const raised: AlarmRecord[] = [];
    const { geofences, crossings } = this.collaborators;
    const activeShipments = new BatchActiveShipments(
      this.collaborators.activeShipments,
      current.map((l) => ({ accountId: l.accountId, deviceId: l.deviceId })),
    );
    // A crossing may complete a shipment: from then on, shipments are asked for again.
    const crossingSink: GeofenceCrossingSink = {
      record: (m, recorded) => {
        activeShipments.invalidate();
        return crossings.record(m, recorded);
      },
    };
    const noOpenTypes: ReadonlySet<string> = new Set();
    for (const lifecycle of current) {
      const points = byLifecycle.get(lifecycle.id) ?? [];
      const thresholds = effectiveThresholds(lifecycle.thresholds, lifecycle.alertPresetId ? (presets.get(lifecycle.alertPresetId) ?? null) : null);
      const openTypes = openTypesOf.get(lifecycle.id) ?? noOpenTypes;
      raised.push(...(await evaluateThresholds(manager, { lifecycle, thresholds, points, openTypes }, activeShipments)));
      if (points.some((p) => p.latitude !== null)) {
        const context = {
          accountId: lifecycle.accountId,
          deviceId: lifecycle.deviceId,
          lifecycleId: lifecycle.id,
          shipmentId: await activeShipments.activeShipmentId(manager, lifecycle.accountId, lifecycle.deviceId),
        };
        raised.push(...(await evaluateGeofences(manager, lifecycle, points, context, geofences, crossingSink)));
      }
    }
    return raised;
  }
}
