import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { completeShipment, loadShipmentRecord, SHIPMENT_ROW_SELECT, type ShipmentRecord, type ShipmentRow } from '@app/domain';
import { writeOutboxEvent } from '@app/events';
import { NotFoundError } from '../common/api-error';
import type { PageRequest } from '../common/paginator';
import { ReportWorker } from '../reports/report-worker';
import type { CreateShipmentDto, ReplaceShipmentDto } from './dto/create-shipment.dto';
import type { ShipmentQueryDto } from './dto/shipment-query.dto';
import { asEligibilityError, assertDeviceCount, attachDevices, detachDevices, eligibleLifecycles } from './shipment-devices';
import { ShipmentCompletedError, ShipmentNotActiveError } from './shipment-errors';
import { checkFields, checkReferences, fieldsForCreate, fieldsForReplace, type ShipmentFields } from './shipment-fields';
import type { AccountId } from '@app/vocabulary';

const likePattern = (term: string): string => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const fieldParams = (f: ShipmentFields): unknown[] => [
  f.reference,
  f.name,
  f.templateId,
  f.originLocationId,
  f.destinationLocationId,
  f.carrierId,
  f.receiverId,
  f.alertPresetId,
  f.plannedDepartureAt,
  f.plannedArrivalAt,
  JSON.stringify(f.legs),
];

@Injectable()
export class ShipmentsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reports: ReportWorker,
  ) {}

  /** Newest first (ids grow), filtered by status and a search over names and labels. */
  async list(accountId: AccountId, query: ShipmentQueryDto, page: PageRequest): Promise<ShipmentRow[]> {
    const params: unknown[] = [accountId, page.limit + 1];
    const where = ['s.account_id = $1', 's.deleted_at IS NULL'];
    const add = (condition: (p: string) => string, value: unknown): void => {
      params.push(value);
      where.push(condition(`$${params.length}`));
    };
    if (query.status) add((p) => `s.status = ${p}`, query.status);
    if (query.search) {
      add(
        (p) => `(s.reference ILIKE ${p} OR s.name ILIKE ${p} OR r.name ILIKE ${p} OR c.name ILIKE ${p}
                 OR EXISTS (SELECT 1 FROM shipment_devices sd JOIN device_lifecycles l ON l.id = sd.lifecycle_id
                             WHERE sd.shipment_id = s.id AND l.label ILIKE ${p}))`,
        likePattern(query.search),
      );
    }
    const after = page.after?.[0];
    if (typeof after === 'number') add((p) => `s.id < ${p}`, after);
    return (await this.dataSource.query(`${SHIPMENT_ROW_SELECT} WHERE ${where.join(' AND ')} ORDER BY s.id DESC LIMIT $2`, params)) as ShipmentRow[];
  }

  async get(accountId: AccountId, shipmentId: number): Promise<ShipmentRecord> {
    const record = await loadShipmentRecord(this.dataSource.manager, accountId, shipmentId);
    if (!record) throw new NotFoundError('Shipment');
    return record;
  }

  /** Immediately active; `shipment.created` with the record in the same transaction. */
  async create(accountId: AccountId, body: CreateShipmentDto): Promise<ShipmentRecord> {
    assertDeviceCount(body.device_ids);
    const now = new Date();
    return this.writing(async (manager) => {
      const fields = await fieldsForCreate(manager, accountId, body);
      checkFields(fields);
      await checkReferences(manager, accountId, fields);
      const lifecycles = await eligibleLifecycles(manager, accountId, null, body.device_ids, (id) => `device_ids.${body.device_ids.indexOf(id)}`);
      const [{ id }] = (await manager.query(
        `INSERT INTO shipments (account_id, reference, name, template_id, origin_location_id, destination_location_id, carrier_id, receiver_id,
                                alert_preset_id, planned_departure_at, planned_arrival_at, transport_legs, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13)
         RETURNING id`,
        [accountId, ...fieldParams(fields), now.toISOString()],
      )) as Array<{ id: number }>;
      await attachDevices(manager, accountId, id, lifecycles, now);
      const record = await this.recordIn(manager, accountId, id, now);
      await writeOutboxEvent(manager, { accountId, type: 'shipment.created', aggregateType: 'shipment', aggregateId: String(id), data: { ...record } });
      return record;
    });
  }

  /** Active shipments only: replaces route, planning, parties and legs; attaches and detaches devices. */
  async replace(accountId: AccountId, shipmentId: number, body: ReplaceShipmentDto): Promise<ShipmentRecord> {
    const now = new Date();
    return this.writing(async (manager) => {
      const current = await this.lockActive(manager, accountId, shipmentId);
      assertDeviceCount(body.device_ids);
      const fields = fieldsForReplace(body, current.template_id);
      checkFields(fields);
      await checkReferences(manager, accountId, fields);
      const attached = (
        (await manager.query(`SELECT device_id FROM shipment_devices WHERE account_id = $1 AND shipment_id = $2 AND detached_at IS NULL`, [
          accountId,
          shipmentId,
        ])) as Array<{ device_id: string }>
      ).map((row) => row.device_id);
      const removed = attached.filter((id) => !body.device_ids.includes(id));
      const added = body.device_ids.filter((id) => !attached.includes(id));
      const lifecycles = await eligibleLifecycles(manager, accountId, shipmentId, added, (id) => `device_ids.${body.device_ids.indexOf(id)}`);
      if (removed.length > 0) await detachDevices(manager, accountId, shipmentId, removed, now);
      await attachDevices(manager, accountId, shipmentId, lifecycles, now);
      await manager.query(
        `UPDATE shipments SET reference = $3, name = $4, template_id = $5, origin_location_id = $6, destination_location_id = $7, carrier_id = $8,
                receiver_id = $9, alert_preset_id = $10, planned_departure_at = $11, planned_arrival_at = $12, transport_legs = $13::jsonb, updated_at = now()
          WHERE account_id = $1 AND id = $2`,
        [accountId, shipmentId, ...fieldParams(fields)],
      );
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
      const [row] = (await manager.query(`SELECT status FROM shipments WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`, [
        accountId,
        shipmentId,
      ])) as Array<{ status: string }>;
      if (!row) throw new NotFoundError('Shipment');
      if (row.status !== 'active') throw new ShipmentCompletedError();
      await detachDevices(manager, accountId, shipmentId, 'all', now);
      await manager.query(`UPDATE shipment_shares SET revoked_at = now(), updated_at = now() WHERE account_id = $1 AND shipment_id = $2 AND revoked_at IS NULL`, [
        accountId,
        shipmentId,
      ]);
      await manager.query(`UPDATE shipments SET deleted_at = $3, updated_at = now() WHERE account_id = $1 AND id = $2`, [accountId, shipmentId, now.toISOString()]);
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
    const [row] = (await manager.query(
      `SELECT status, template_id FROM shipments WHERE account_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE`,
      [accountId, shipmentId],
    )) as Array<{ status: string; template_id: string | null }>;
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
