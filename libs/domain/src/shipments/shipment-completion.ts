import type { EntityManager } from 'typeorm';
import { writeOutboxEvent } from '@app/events';
import { enqueueShipmentReport } from '../reports/report-jobs';
import { loadShipmentRecord, type ShipmentRecord } from './shipment-record';
import type { AccountId } from '@app/vocabulary';

export type CompletedBy = 'api' | 'geofence';

export type CompletionResult = { outcome: 'completed'; record: ShipmentRecord } | { outcome: 'not_found' } | { outcome: 'not_active' };

/**
 * Completes an active shipment — the one way to do it, for the API and the geofence automation.
 * Under the row lock (FOR UPDATE) exactly one of any number of concurrent callers finds it
 * active; the others see it completed. In the caller's transaction: the status, the frozen
 * window (every open attachment ends at the completion moment), the report job, and the
 * `shipment.completed` event with the shipment record.
 */
export async function completeShipment(
  manager: EntityManager,
  accountId: AccountId,
  shipmentId: number,
  by: CompletedBy,
  at: Date = new Date(),
): Promise<CompletionResult> {
  const rows = (await manager.query(
    `SELECT status FROM shipments WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
    [accountId, shipmentId],
  )) as Array<{ status: string }>;
  if (rows.length === 0) return { outcome: 'not_found' };
  if (rows[0].status !== 'active') return { outcome: 'not_active' };
  await manager.query(
    `UPDATE shipments SET status = 'completed', completed_at = $3, completed_by = $4, updated_at = now() WHERE account_id = $1 AND id = $2`,
    [accountId, shipmentId, at.toISOString(), by],
  );
  await manager.query(
    `UPDATE shipment_devices SET detached_at = $3 WHERE account_id = $1 AND shipment_id = $2 AND detached_at IS NULL`,
    [accountId, shipmentId, at.toISOString()],
  );
  await enqueueShipmentReport(manager, accountId, shipmentId);
  const record = await loadShipmentRecord(manager, accountId, shipmentId, at);
  if (!record) throw new Error(`shipment ${shipmentId} vanished inside its completion`);
  await writeOutboxEvent(manager, {
    accountId,
    type: 'shipment.completed',
    aggregateType: 'shipment',
    aggregateId: String(shipmentId),
    data: { ...record },
  });
  return { outcome: 'completed', record };
}
