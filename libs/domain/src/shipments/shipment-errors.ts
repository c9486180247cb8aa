import { ConflictError, DomainError, type FieldError } from '../errors';
import { MAX_SHIPMENT_DEVICES } from './shipment-limits';

export class ShipmentNotActiveError extends ConflictError {
  constructor() {
    super('shipment_not_active', 'The shipment is completed: only an active shipment can be updated or completed.', 'Shipment not active');
  }
}

export class ShipmentCompletedError extends ConflictError {
  constructor() {
    super('shipment_completed', 'A completed shipment is never deleted; its history stays untouched.', 'Shipment completed');
  }
}

export class TooManyDevicesError extends DomainError {
  constructor(count: number) {
    super('too_many_devices', 'Too many devices', `A shipment carries at most ${MAX_SHIPMENT_DEVICES} devices; ${count} were sent.`, [
      { field: 'device_ids', code: 'too_many_devices', message: `at most ${MAX_SHIPMENT_DEVICES} devices` },
    ]);
  }
}

export class DeviceNotEligibleError extends DomainError {
  constructor(errors: FieldError[]) {
    super('device_not_eligible', 'Device not eligible', 'A device cannot travel in this shipment; see `errors`.', errors);
  }
}
