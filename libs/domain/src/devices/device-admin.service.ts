import { randomBytes, randomInt } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { accountExists, newId } from '@app/database';
import { UUID_PATTERN } from '@app/vocabulary';
import type { AccountId } from '@app/vocabulary';
import type { Db } from '@app/database/sql';
import {
  approveDeviceRow,
  endLifecycle,
  insertRegisteredDevices,
  lockCurrentLifecycle,
  lockDeviceRow,
  startLifecycle,
  type NewDevice,
} from './devices.repository';

export class DeviceInputError extends Error {}

export interface RegisteredDevice {
  id: string;
  serial_number: string;
  account_id: string;
  lifecycle_id: string;
  approved: boolean;
}

export interface RegisterDevicesInput {
  accountId: AccountId;
  count?: number;
  approved?: boolean;
  model?: string;
}

export interface TransferResult {
  device_id: string;
  account_id: string;
  lifecycle_id: string;
  previous_lifecycle_id: string | null;
  previous_account_id: string | null;
}

export const MAX_REGISTER_COUNT = 1000;

const digits = (length: number): string => Array.from({ length }, () => randomInt(10)).join('');

/**
 * Platform-side onboarding of trackers (the public API never creates devices): registration
 * with a first lifecycle for the owning account, approval, and transfer to a new owner.
 */
/**
 * What else ends with a device's lifecycle on a transfer, in the same transaction: the shipments
 * family's `detachDeviceLifecycle` (the previous owner's active shipment loses the device). Passed
 * in, so that devices never imports shipments (the shipments family builds on devices).
 */
export type LifecycleEndedHook = (db: Db, lifecycleId: string) => Promise<void>;

export class DeviceAdminService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lifecycleEnded: LifecycleEndedHook,
  ) {}

  async register(input: RegisterDevicesInput): Promise<RegisteredDevice[]> {
    const count = input.count ?? 1;
    if (!Number.isInteger(count) || count < 1 || count > MAX_REGISTER_COUNT) {
      throw new DeviceInputError(`count must be an integer between 1 and ${MAX_REGISTER_COUNT}`);
    }
    await this.requireAccount(input.accountId);
    const approved = input.approved ?? false;
    return this.dataSource.transaction(async (manager) => {
      const devices: RegisteredDevice[] = [];
      for (let i = 0; i < count; i++) {
        const device: RegisteredDevice = {
          id: newId(),
          serial_number: `CCT-${randomBytes(5).toString('hex').toUpperCase()}`,
          account_id: input.accountId,
          lifecycle_id: newId(),
          approved,
        };
        devices.push(device);
      }
      const imeis = devices.map(() => `35${digits(13)}`);
      const iccids = devices.map(() => `8990${digits(15)}`);
      const keys = devices.map(() => randomBytes(32).toString('hex'));
      const rows: NewDevice[] = devices.map((d, i) => ({ id: d.id, serial_number: d.serial_number, lifecycle_id: d.lifecycle_id, imei: imeis[i], sim_iccid: iccids[i], firmware_key: keys[i] }));
      await insertRegisteredDevices(manager, input.accountId, rows, input.model ?? 'ColdTrack T4', approved);
      return devices;
    });
  }

  async approve(deviceId: string): Promise<{ id: string; approved: boolean }> {
    this.requireUuid(deviceId, 'device');
    if (!(await approveDeviceRow(this.dataSource, deviceId))) throw new DeviceInputError(`no device ${deviceId} (or it is deleted)`);
    return { id: deviceId, approved: true };
  }

  /** Ends the current lifecycle and starts the new owner's at the same instant. */
  async transfer(deviceId: string, accountId: AccountId): Promise<TransferResult> {
    this.requireUuid(deviceId, 'device');
    await this.requireAccount(accountId);
    return this.dataSource.transaction(async (manager) => {
      if (!(await lockDeviceRow(manager, deviceId))) throw new DeviceInputError(`no device ${deviceId} (or it is deleted)`);
      const current = await lockCurrentLifecycle(manager, deviceId);
      if (current?.account_id === accountId) throw new DeviceInputError(`device ${deviceId} already belongs to account ${accountId}`);
      if (current) {
        await endLifecycle(manager, current.id);
        // The previous owner's active shipment loses the device with the ownership.
        await this.lifecycleEnded(manager, current.id);
      }
      const lifecycleId = newId();
      await startLifecycle(manager, accountId, lifecycleId, deviceId);
      return {
        device_id: deviceId,
        account_id: accountId,
        lifecycle_id: lifecycleId,
        previous_lifecycle_id: current?.id ?? null,
        previous_account_id: current?.account_id ?? null,
      };
    });
  }

  private requireUuid(value: string, what: string): void {
    if (!UUID_PATTERN.test(value)) throw new DeviceInputError(`not a ${what} id: ${value}`);
  }

  private async requireAccount(accountId: AccountId): Promise<void> {
    this.requireUuid(accountId, 'account');
    if (!(await accountExists(this.dataSource, accountId))) throw new DeviceInputError(`no account ${accountId}`);
  }
}
