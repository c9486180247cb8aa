import type { DataSource, EntityManager } from 'typeorm';
import { writeOutboxEvent } from '@app/events';
import { NotFoundError } from '../errors';
import { asEligibilityError, assertDeviceCount, attachDevices, detachDevices, eligibleLifecycles } from './shipment-devices';
import { completeShipment } from './shipment-completion';
import { ShipmentCompletedError, ShipmentNotActiveError } from './shipment-errors';
import { checkFields, checkReferences, fieldsForCreate, fieldsForReplace, type CreateShipmentInput, type ReplaceShipmentInput } from './shipment-fields';
import { loadShipmentRecord, type ShipmentRecord } from './shipment-record';
import type { ShipmentStatus } from './shipment-status';
import { insertShipment, listShipmentRows, lockShipment, markShipmentDeleted, replaceShipment, type ShipmentRow } from './shipments.repository';
import { attachedDeviceIds } from './shipment-devices.repository';
import { revokeShare } from './shipment-shares.repository';
import type { AccountId, KeysetPage } from '@app/vocabulary';

const likePattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The filters of a shipment list (the api's `ShipmentQueryDto` satisfies it). */
export interface ShipmentFilters {
  status?: ShipmentStatus;
  search?: string;
}

/** Generates the reports of completed shipments; kicked after an API completion (the api's `ReportWorker`). */
export interface ReportKicker {
  kick(): void;
}

export class ShipmentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reports: ReportKicker,
  ) {}

  /** Newest first (ids grow), filtered by status and a search over names and labels. */
  async list(accountId: AccountId, query: ShipmentFilters, page: KeysetPage<number>): Promise<ShipmentRow[]> {
    return listShipmentRows(this.dataSource, accountId, {
      status: query.status || null,
      searchPattern: query.search ? likePattern(query.search) : null,
      beforeId: page.after,
      limit: page.limit + 1,
    });
  }

  async get(accountId: AccountId, shipmentId: number): Promise<ShipmentRecord> {
    const record = await loadShipmentRecord(this.dataSource.manager, accountId, shipmentId);
    if (!record) throw new NotFoundError('Shipment');
    return record;
  }

  /** Immediately active; `shipment.created` with the record in the same transaction. */
  async create(accountId: AccountId, body: CreateShipmentInput): Promise<ShipmentRecord> {
    assertDeviceCount(body.device_ids);
    const now = new Date();
    return this.writing(async (manager) => {
      const fields = await fieldsForCreate(manager, accountId, body);
      checkFields(fields);
      await checkReferences(manager, accountId, fields);
      const lifecycles = await eligibleLifecycles(manager, accountId, null, body.device_ids, (id) => `device_ids.${body.device_ids.indexOf(id)}`);
      const id = await insertShipment(manager, accountId, fields, now);
      await attachDevices(manager, accountId, id, lifecycles, now);
      const record = await this.recordIn(manager, accountId, id, now);
      await writeOutboxEvent(manager, { accountId, type: 'shipment.created', aggregateType: 'shipment', aggregateId: String(id), data: { ...record } });
      return record;
    });
  }

  /** Active shipments only: replaces route, planning, parties and legs; attaches and detaches devices. */
  async replace(accountId: AccountId, shipmentId: number, body: ReplaceShipmentInput): Promise<ShipmentRecord> {
    const now = new Date();
    return this.writing(async (manager) => {
      const current = await this.lockActive(manager, accountId, shipmentId);
      assertDeviceCount(body.device_ids);
      const fields = fieldsForReplace(body, current.template_id);
      checkFields(fields);
      await checkReferences(manager, accountId, fields);
      const attached = await attachedDeviceIds(manager, accountId, shipmentId);
      const removed = attached.filter((id) => !body.device_ids.includes(id));
      const added = body.device_ids.filter((id) => !attached.includes(id));
      const lifecycles = await eligibleLifecycles(manager, accountId, shipmentId, added, (id) => `device_ids.${body.device_ids.indexOf(id)}`);
      if (removed.length > 0) await detachDevices(manager, accountId, shipmentId, removed, now);
      await attachDevices(manager, accountId, shipmentId, lifecycles, now);
      await replaceShipment(manager, accountId, shipmentId, fields);
      return this.recordIn(manager, accountId, shipmentId, now);
    });
  }

  /**
   * An incomplete shipment disappears from the API (404 afterwards); its id is kept so that alarms
   * raised during it still name it. Its devices are detached and its share link revoked.
   */
  async remove(accountId: AccountId, shipmentId: number): Promise<void> {
    const now = new Date();
    await this.dataSource.transaction(async (manager) => {
      const row = await lockShipment(manager, accountId, shipmentId);
      if (!row) throw new NotFoundError('Shipment');
      if (row.status !== 'active') throw new ShipmentCompletedError();
      await detachDevices(manager, accountId, shipmentId, 'all', now);
      await revokeShare(manager, accountId, shipmentId);
      await markShipmentDeleted(manager, accountId, shipmentId, now);
    });
  }

  /** Of any number of concurrent calls exactly one completes the shipment; the others get 409. */
  async complete(accountId: AccountId, shipmentId: number): Promise<ShipmentRecord> {
    const result = await this.dataSource.transaction((manager) => completeShipment(manager, accountId, shipmentId, 'api'));
    if (result.outcome === 'not_found') throw new NotFoundError('Shipment');
    if (result.outcome === 'not_active') throw new ShipmentNotActiveError();
    this.reports.kick();
    return result.record;
  }

  private async lockActive(manager: EntityManager, accountId: AccountId, shipmentId: number): Promise<{ template_id: string | null }> {
    const row = await lockShipment(manager, accountId, shipmentId);
    if (!row) throw new NotFoundError('Shipment');
    if (row.status !== 'active') throw new ShipmentNotActiveError();
    return row;
  }

  private async recordIn(manager: EntityManager, accountId: AccountId, shipmentId: number, now: Date): Promise<ShipmentRecord> {
    const record = await loadShipmentRecord(manager, accountId, shipmentId, now);
    if (!record) throw new NotFoundError('Shipment');
    return record;
  }

  private async writing<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (error) {
      throw asEligibilityError(error);
    }
  }
}
