/** Front door of the devices family: devices (registration, approval, transfer, settings, thresholds). Services and types only; its repositories stay inside the folder. */
export * from './device-settings';
export * from './alert-preset-thresholds';
export * from './judged-thresholds';
export * from './device-admin.service';
export * from './devices.service';
export type { DeviceRow, MaintenanceRow, SettingsChange } from './devices.repository';
export * from './device-lifecycles';
