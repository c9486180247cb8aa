import type { EntityManager } from 'typeorm';
import { writeOutboxEvent } from '@app/events';
import { enqueueShipmentReport } from './report-queue.repository';
import { loadShipmentRecord, type ShipmentRecord } from './shipment-record';
import { lockShipment, markShipmentCompleted } from './shipments.repository';
import { closeAttachments } from './shipment-devices.repository';
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
  const shipment = await lockShipment(manager, accountId, shipmentId);
  if (!shipment) return { outcome: 'not_found' };
  if (shipment.status !== 'active') return { outcome: 'not_active' };
  await markShipmentCompleted(manager, accountId, shipmentId, at, by);
  await closeAttachments(manager, accountId, shipmentId, at);
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
