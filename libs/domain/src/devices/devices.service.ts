import type { DataSource } from 'typeorm';
import type { AccountId, KeysetPage, TimeAndId } from '@app/vocabulary';
import { NotFoundError, ValidationFailedError, type FieldError } from '../errors';
import { alertPresetExists } from './alert-preset-thresholds';
import { inconsistentThresholds, toSensors, toThresholds, type Sensors, type Thresholds } from './device-settings';
import { DevicesRepository, type DeviceRow, type MaintenanceRow, type SettingsChange } from './devices.repository';

/** A device is offline once it has missed this many transmission intervals. */
export const OFFLINE_AFTER_INTERVALS = 3;

/**
 * A settings change: only the fields given change, nested objects included (the api's
 * `UpdateDeviceSettingsDto` satisfies it).
 */
export interface DeviceSettingsPatch {
  measurement_interval_s?: number;
  transmission_interval_s?: number;
  sensors?: Partial<Sensors>;
  thresholds?: Partial<Thresholds>;
  alert_preset_id?: string | null;
}

/** Connectivity, battery and last position of a device (the api presents it as `DeviceStatusDto`). */
export interface DeviceStatus {
  device_id: string;
  connectivity: 'online' | 'offline';
  last_seen_at: string | null;
  battery: { percent: number; recorded_at: string } | null;
  location: { latitude: number; longitude: number; recorded_at: string } | null;
}

const defined = <T extends object>(patch: T | undefined): Partial<T> =>
  Object.fromEntries(Object.entries(patch ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;

export class DevicesService {
  constructor(
    private readonly devices: DevicesRepository,
    private readonly dataSource: DataSource,
  ) {}

  list(accountId: AccountId, page: KeysetPage<string>): Promise<DeviceRow[]> {
    return this.devices.list(accountId, page);
  }

  /** The tenant's visible device, or 404 — also for devices of other tenants. */
  async get(accountId: AccountId, deviceId: string): Promise<DeviceRow> {
    const device = await this.devices.find(accountId, deviceId);
    if (!device) throw new NotFoundError('Device');
    return device;
  }

  async updateLabel(accountId: AccountId, deviceId: string, label: string | null | undefined): Promise<DeviceRow> {
    const device = await this.get(accountId, deviceId);
    if (label !== undefined) await this.devices.updateLabel(accountId, device.lifecycle_id, label);
    return this.get(accountId, deviceId);
  }

  async updateSettings(accountId: AccountId, deviceId: string, patch: DeviceSettingsPatch): Promise<DeviceRow> {
    await this.dataSource.transaction(async (manager) => {
      const device = await this.devices.findForUpdate(manager, accountId, deviceId);
      if (!device) throw new NotFoundError('Device');
      const settings: SettingsChange = {
        measurement_interval_s: patch.measurement_interval_s ?? device.measurement_interval_s,
        transmission_interval_s: patch.transmission_interval_s ?? device.transmission_interval_s,
        sensors: { ...toSensors(device.sensors), ...defined<Sensors>(patch.sensors as Sensors | undefined) },
        thresholds: { ...toThresholds(device.thresholds), ...defined<Thresholds>(patch.thresholds as Thresholds | undefined) },
        alert_preset_id: patch.alert_preset_id !== undefined ? patch.alert_preset_id : device.alert_preset_id,
      };
      const errors: FieldError[] = [];
      if (settings.transmission_interval_s < settings.measurement_interval_s) {
        errors.push({
          field: 'transmission_interval_s',
          code: 'below_measurement_interval',
          message: 'transmission_interval_s must not be shorter than measurement_interval_s',
        });
      }
      for (const problem of inconsistentThresholds(settings.thresholds)) {
        errors.push({ field: `thresholds.${problem.field}`, code: 'min_above_max', message: problem.message });
      }
      if (patch.alert_preset_id && !(await alertPresetExists(manager, accountId, patch.alert_preset_id))) {
        errors.push({ field: 'alert_preset_id', code: 'unknown_alert_preset', message: 'alert_preset_id must name an alert preset of this account' });
      }
      if (errors.length > 0) throw new ValidationFailedError(errors);
      await this.devices.updateSettings(manager, accountId, device.lifecycle_id, settings);
    });
    return this.get(accountId, deviceId);
  }

  async status(accountId: AccountId, deviceId: string, now: Date = new Date()): Promise<DeviceStatus> {
    const device = await this.get(accountId, deviceId);
    const lastSeen = device.last_seen_at;
    const online = lastSeen !== null && now.getTime() - lastSeen.getTime() <= OFFLINE_AFTER_INTERVALS * device.transmission_interval_s * 1000;
    return {
      device_id: device.id,
      connectivity: online ? 'online' : 'offline',
      last_seen_at: lastSeen ? lastSeen.toISOString() : null,
      battery: device.battery !== null && device.battery_at ? { percent: device.battery, recorded_at: device.battery_at.toISOString() } : null,
      location:
        device.latitude !== null && device.longitude !== null && device.location_at
          ? { latitude: device.latitude, longitude: device.longitude, recorded_at: device.location_at.toISOString() }
          : null,
    };
  }

  async maintenance(accountId: AccountId, deviceId: string, page: KeysetPage<TimeAndId>): Promise<MaintenanceRow[]> {
    return this.devices.maintenance(accountId, await this.get(accountId, deviceId), page);
  }
}

/** The service with its repository, for the apps (the repository stays inside the family). */
export function createDevicesService(dataSource: DataSource): DevicesService {
  return new DevicesService(new DevicesRepository(dataSource), dataSource);
}
