import type { EntityManager } from 'typeorm';
import { QueryFailedError } from 'typeorm';
import type { FieldError } from '../common/api-error';
import { MAX_SHIPMENT_DEVICES } from './dto/create-shipment.dto';
import { DeviceNotEligibleError, TooManyDevicesError } from './shipment-errors';
import type { AccountId } from '@app/vocabulary';

const ONE_ACTIVE_SHIPMENT_INDEX = 'shipment_devices_one_active_idx';

export function assertDeviceCount(deviceIds: readonly string[]): void {
  if (deviceIds.length > MAX_SHIPMENT_DEVICES) throw new TooManyDevicesError(deviceIds.length);
}

/**
 * The devices' current lifecycles, when every device is eligible: visible to the account
 * (approved, not deleted, owned now) and in no other active shipment. The lifecycles stay
 * key-share locked until commit (a transfer cannot end them meanwhile); the partial unique index
 * settles a race between two shipments taking the same device (see asEligibilityError).
 */
export async function eligibleLifecycles(
  manager: EntityManager,
  accountId: AccountId,
  shipmentId: number | null,
  deviceIds: readonly string[],
  fieldOf: (deviceId: string) => string,
): Promise<Map<string, string>> {
  if (deviceIds.length === 0) return new Map();
  const visible = (await manager.query(
    `SELECT d.id AS device_id, l.id AS lifecycle_id
       FROM device_lifecycles l JOIN devices d ON d.id = l.device_id
      WHERE l.account_id = $1 AND l.ended_at IS NULL AND d.approval_status = 'approved' AND d.deleted_at IS NULL
        AND d.id = ANY($2::uuid[])
      ORDER BY l.id
        FOR KEY SHARE OF l`,
    [accountId, deviceIds],
  )) as Array<{ device_id: string; lifecycle_id: string }>;
  const busy = (await manager.query(
    `SELECT device_id FROM shipment_devices
      WHERE account_id = $1 AND device_id = ANY($2::uuid[]) AND detached_at IS NULL AND shipment_id IS DISTINCT FROM $3`,
    [accountId, deviceIds, shipmentId],
  )) as Array<{ device_id: string }>;
  const lifecycles = new Map(visible.map((row) => [row.device_id, row.lifecycle_id]));
  const inOtherShipment = new Set(busy.map((row) => row.device_id));
  const errors: FieldError[] = [];
  for (const deviceId of deviceIds) {
    if (!lifecycles.has(deviceId)) {
      errors.push({ field: fieldOf(deviceId), code: 'device_not_available', message: `device ${deviceId} is unknown, not approved, deleted, or not owned by this account` });
    } else if (inOtherShipment.has(deviceId)) {
      errors.push({ field: fieldOf(deviceId), code: 'device_in_active_shipment', message: `device ${deviceId} is in another active shipment` });
    }
  }
  if (errors.length > 0) throw new DeviceNotEligibleError(errors);
  return lifecycles;
}

export async function attachDevices(manager: EntityManager, accountId: AccountId, shipmentId: number, lifecycles: Map<string, string>, at: Date): Promise<void> {
  if (lifecycles.size === 0) return;
  await manager.query(
    `INSERT INTO shipment_devices (shipment_id, account_id, device_id, lifecycle_id, attached_at)
     SELECT $1, $2, device_id, lifecycle_id, $5 FROM unnest($3::uuid[], $4::uuid[]) AS a(device_id, lifecycle_id)`,
    [shipmentId, accountId, [...lifecycles.keys()], [...lifecycles.values()], at.toISOString()],
  );
}

export async function detachDevices(manager: EntityManager, accountId: AccountId, shipmentId: number, deviceIds: readonly string[] | 'all', at: Date): Promise<void> {
  await manager.query(
    `UPDATE shipment_devices SET detached_at = GREATEST($4::timestamptz, attached_at)
      WHERE account_id = $1 AND shipment_id = $2 AND detached_at IS NULL AND ($3::uuid[] IS NULL OR device_id = ANY($3::uuid[]))`,
    [accountId, shipmentId, deviceIds === 'all' ? null : deviceIds, at.toISOString()],
  );
}

/** A concurrent shipment took one of the devices first: the same refusal as the check above. */
export function asEligibilityError(error: unknown): unknown {
  if (error instanceof QueryFailedError) {
    const driver = error.driverError as { code?: string; constraint?: string };
    if (driver.code === '23505' && driver.constraint === ONE_ACTIVE_SHIPMENT_INDEX) {
      return new DeviceNotEligibleError([{ field: 'device_ids', code: 'device_in_active_shipment', message: 'a device was attached to another active shipment at the same moment' }]);
    }
  }
  return error;
}
