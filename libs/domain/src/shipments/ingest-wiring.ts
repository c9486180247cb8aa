import type { ActiveShipmentLookup, IngestCollaborators } from '../telemetry';
import { SHIPMENT_GEOFENCE_AUTOMATION, SHIPMENT_ROUTE_GEOFENCES } from './shipment-geofences';
import { activeShipmentOfDevice, activeShipmentsOfDevices } from './shipment-devices.repository';

/**
 * An open attachment (detached_at IS NULL) exists only while its shipment is active: completion
 * and deletion close them, and the partial unique index allows one per device.
 */
export const ATTACHED_DEVICE_SHIPMENTS: ActiveShipmentLookup = {
  activeShipmentId: (manager, accountId, deviceId) => activeShipmentOfDevice(manager, accountId, deviceId),
  activeShipmentIds: (manager, devices) => activeShipmentsOfDevices(manager, devices),
};

/**
 * The one place where the shipments and locations features plug into ingestion, for the api
 * (queue consumer) and the CLI alike: alarms carry the device's active shipment, and the route
 * locations of that shipment are the geofences, with their entry/exit automation.
 */
export function defaultIngestCollaborators(): IngestCollaborators {
  return { activeShipments: ATTACHED_DEVICE_SHIPMENTS, geofences: SHIPMENT_ROUTE_GEOFENCES, crossings: SHIPMENT_GEOFENCE_AUTOMATION };
}
