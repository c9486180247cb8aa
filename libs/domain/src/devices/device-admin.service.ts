import { randomBytes, randomInt } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { newId } from '@app/database';
import { UUID_PATTERN } from '../formats';
import type { AccountId } from '@app/vocabulary';

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
export class DeviceAdminService {
  constructor(private readonly dataSource: DataSource) {}

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
      await manager.query(
        `INSERT INTO devices (id, serial_number, model, firmware_version, imei, sim_iccid, firmware_key, approval_status, approved_at)
         SELECT id, serial, $3, '4.2.0', imei, iccid, key, CASE WHEN $4 THEN 'approved' ELSE 'pending' END, CASE WHEN $4 THEN now() END
           FROM unnest($1::uuid[], $2::text[], $5::text[], $6::text[], $7::text[]) AS d(id, serial, imei, iccid, key)`,
        [
          devices.map((d) => d.id),
          devices.map((d) => d.serial_number),
          input.model ?? 'ColdTrack T4',
          approved,
          devices.map(() => `35${digits(13)}`),
          devices.map(() => `8990${digits(15)}`),
          devices.map(() => randomBytes(32).toString('hex')),
        ],
      );
      await manager.query(
        `INSERT INTO device_lifecycles (id, device_id, account_id, started_at)
         SELECT id, device_id, $3, now() FROM unnest($1::uuid[], $2::uuid[]) AS l(id, device_id)`,
        [devices.map((d) => d.lifecycle_id), devices.map((d) => d.id), input.accountId],
      );
      return devices;
    });
  }

  async approve(deviceId: string): Promise<{ id: string; approved: boolean }> {
    this.requireUuid(deviceId, 'device');
    const rows = (await this.dataSource.query(
      `UPDATE devices SET approval_status = 'approved', approved_at = COALESCE(approved_at, now()), updated_at = now()
        WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
      [deviceId],
    )) as [Array<{ id: string }>, number];
    if (rows[0].length === 0) throw new DeviceInputError(`no device ${deviceId} (or it is deleted)`);
    return { id: deviceId, approved: true };
  }

  /** Ends the current lifecycle and starts the new owner's at the same instant. */
  async transfer(deviceId: string, accountId: AccountId): Promise<TransferResult> {
    this.requireUuid(deviceId, 'device');
    await this.requireAccount(accountId);
    return this.dataSource.transaction(async (manager) => {
      const devices = (await manager.query(`SELECT id FROM devices WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`, [deviceId])) as unknown[];
      if (devices.length === 0) throw new DeviceInputError(`no device ${deviceId} (or it is deleted)`);
      const [current] = (await manager.query(
        `SELECT id, account_id FROM device_lifecycles WHERE device_id = $1 AND ended_at IS NULL FOR UPDATE`,
        [deviceId],
      )) as Array<{ id: string; account_id: string }>;
      if (current?.account_id === accountId) throw new DeviceInputError(`device ${deviceId} already belongs to account ${accountId}`);
      if (current) {
        await manager.query(`UPDATE device_lifecycles SET ended_at = now(), updated_at = now() WHERE id = $1`, [current.id]);
        // The previous owner's active shipment loses the device with the ownership.
        await manager.query(`UPDATE shipment_devices SET detached_at = GREATEST(now(), attached_at) WHERE lifecycle_id = $1 AND detached_at IS NULL`, [current.id]);
      }
      const lifecycleId = newId();
      await manager.query(`INSERT INTO device_lifecycles (id, device_id, account_id, started_at) VALUES ($1, $2, $3, now())`, [
        lifecycleId,
        deviceId,
        accountId,
      ]);
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
    const rows = (await this.dataSource.query(`SELECT 1 FROM accounts WHERE id = $1`, [accountId])) as unknown[];
    if (rows.length === 0) throw new DeviceInputError(`no account ${accountId}`);
  }
}
