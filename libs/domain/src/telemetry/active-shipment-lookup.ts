import type { EntityManager } from 'typeorm';
import type { AccountId } from '@app/vocabulary';

/**
 * Which shipment a device is travelling in right now, for the alarm's `shipment_id`. Ingestion
 * asks; the shipments family answers (its ATTACHED_DEVICE_SHIPMENTS, wired by its
 * defaultIngestCollaborators()), so telemetry never imports shipments.
 */
export interface ActiveShipmentLookup {
  activeShipmentId(manager: EntityManager, accountId: AccountId, deviceId: string): Promise<number | null>;
  /** The same for many devices in one go (device id → shipment id, for those that have one); optional. */
  activeShipmentIds?(manager: EntityManager, devices: readonly DeviceOfAccount[]): Promise<Map<string, number>>;
}

export interface DeviceOfAccount {
  accountId: AccountId;
  deviceId: string;
}

export const NO_ACTIVE_SHIPMENTS: ActiveShipmentLookup = {
  activeShipmentId: () => Promise.resolve(null),
};

/**
 * An ActiveShipmentLookup for one ingestion transaction: when `lookup` can answer for many devices
 * at once, the first question loads the answers for every device of the batch in one query,
 * instead of one query per device. `invalidate()` goes back to asking `lookup` per device: called
 * when something in the transaction may have changed attachments (a geofence crossing can
 * complete a shipment).
 */
export class BatchActiveShipments implements ActiveShipmentLookup {
  private answers: Promise<Map<string, number>> | null = null;
  private valid = true;
  private readonly accounts: Map<string, string>;

  constructor(
    private readonly lookup: ActiveShipmentLookup,
    private readonly devices: readonly DeviceOfAccount[],
  ) {
    this.accounts = new Map(devices.map((d) => [d.deviceId, d.accountId]));
  }

  invalidate(): void {
    this.valid = false;
  }

  async activeShipmentId(manager: EntityManager, accountId: AccountId, deviceId: string): Promise<number | null> {
    const batch = this.lookup.activeShipmentIds?.bind(this.lookup);
    if (!batch || !this.valid || this.accounts.get(deviceId) !== accountId) return this.lookup.activeShipmentId(manager, accountId, deviceId);
    this.answers ??= batch(manager, this.devices);
    return (await this.answers).get(deviceId) ?? null;
  }
}
