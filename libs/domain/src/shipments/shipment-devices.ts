import type { EntityManager } from 'typeorm';
import type { Db } from '@app/database/sql';
import { QueryFailedError } from 'typeorm';
import type { FieldError } from '../errors';
import { DeviceNotEligibleError, TooManyDevicesError } from './shipment-errors';
import { MAX_SHIPMENT_DEVICES } from './shipment-limits';
import { detachLifecycle, devicesInOtherShipments, endAttachments, insertAttachments, visibleDeviceLifecycles } from './shipment-devices.repository';
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
  const visible = await visibleDeviceLifecycles(manager, accountId, deviceIds);
  const busy = await devicesInOtherShipments(manager, accountId, deviceIds, shipmentId);
  const lifecycles = new Map(visible.map((row) => [row.device_id, row.lifecycle_id]));
  const inOtherShipment = new Set(busy);
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
  await insertAttachments(manager, accountId, shipmentId, lifecycles, at);
}

export async function detachDevices(manager: EntityManager, accountId: AccountId, shipmentId: number, deviceIds: readonly string[] | 'all', at: Date): Promise<void> {
  await endAttachments(manager, accountId, shipmentId, deviceIds, at);
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

/** Ends the lifecycle's open attachment, if any (the device leaves its shipment: transfer, retirement). */
export function detachDeviceLifecycle(db: Db, lifecycleId: string): Promise<void> {
  return detachLifecycle(db, lifecycleId);
}
