import { ATTACHED_DEVICE_SHIPMENTS, type ActiveShipmentLookup } from '../shipments/active-shipment-lookup';
import { SHIPMENT_GEOFENCE_AUTOMATION, SHIPMENT_ROUTE_GEOFENCES } from '../shipments/shipment-geofences';
import type { GeofenceCrossingSink, GeofenceSource } from './geofence-source';

/** What ingestion asks of the features that own shipments and locations. */
export interface IngestCollaborators {
  activeShipments: ActiveShipmentLookup;
  geofences: GeofenceSource;
  crossings: GeofenceCrossingSink;
}

/**
 * The one place where the shipments and locations features plug into ingestion, for the api
 * (queue consumer) and the CLI alike: alarms carry the device's active shipment, and the route
 * locations of that shipment are the geofences, with their entry/exit automation.
 */
export function defaultIngestCollaborators(): IngestCollaborators {
  return { activeShipments: ATTACHED_DEVICE_SHIPMENTS, geofences: SHIPMENT_ROUTE_GEOFENCES, crossings: SHIPMENT_GEOFENCE_AUTOMATION };
}
