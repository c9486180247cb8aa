import type { ReferenceCheck } from '../catalogue';
import { presetInDeviceSettings, SHIPMENT_LEG_REFERENCE_KEYS, SHIPMENT_REFERENCE_COLUMNS, usedByActiveShipment, type ShipmentLegReferenceKey, type ShipmentReferenceColumn } from './shipments.repository';

const known = <T extends string>(names: readonly string[], allowed: readonly T[], what: string): T[] =>
  names.map((name) => {
    if (!(allowed as readonly string[]).includes(name)) throw new Error(`${name} is not a ${what} that can reference a catalogue record`);
    return name as T;
  });

/**
 * A catalogue record is used by an ACTIVE shipment when one of the shipment's columns, or a key
 * of one of its transport legs, holds its id. Completed (and deleted) shipments do not hold
 * records: their history outlives them.
 */
export function referencedByActiveShipments(columns: string[], legKeys: string[] = []): ReferenceCheck {
  const checkedColumns = known<ShipmentReferenceColumn>(columns, SHIPMENT_REFERENCE_COLUMNS, 'shipment column');
  const checkedLegKeys = known<ShipmentLegReferenceKey>(legKeys, SHIPMENT_LEG_REFERENCE_KEYS, 'transport leg key');
  return {
    what: 'an active shipment',
    isReferenced: (manager, accountId, id) => usedByActiveShipment(manager, accountId, id, checkedColumns, checkedLegKeys),
  };
}

/** An alert preset named by a device's current settings (its open lifecycle in this account). */
export const REFERENCED_BY_DEVICE_SETTINGS: ReferenceCheck = {
  what: 'the settings of a device',
  isReferenced: (manager, accountId, id) => presetInDeviceSettings(manager, accountId, id),
};
