import { NO_ACTIVE_SHIPMENTS, type ActiveShipmentLookup } from '../shipments/active-shipment-lookup';
import { IGNORE_GEOFENCE_CROSSINGS, NO_GEOFENCES, type GeofenceCrossingSink, type GeofenceSource } from './geofence-source';

/** What ingestion asks of the features that own shipments and locations. */
export interface IngestCollaborators {
  activeShipments: ActiveShipmentLookup;
  geofences: GeofenceSource;
  crossings: GeofenceCrossingSink;
}

/**
 * The one place where the shipments and locations features plug into ingestion, for the api
 * (queue consumer) and the CLI alike. Until they land: no shipments, no geofences.
 */
export function defaultIngestCollaborators(): IngestCollaborators {
  return { activeShipments: NO_ACTIVE_SHIPMENTS, geofences: NO_GEOFENCES, crossings: IGNORE_GEOFENCE_CROSSINGS };
}
