import type { ActiveShipmentLookup } from './active-shipment-lookup';
import type { GeofenceCrossingSink, GeofenceSource } from './geofence-source';

/**
 * What ingestion asks of the families that own shipments and locations. Telemetry declares it;
 * the shipments family provides it (`defaultIngestCollaborators()`), for the api and the CLI alike.
 */
export interface IngestCollaborators {
  activeShipments: ActiveShipmentLookup;
  geofences: GeofenceSource;
  crossings: GeofenceCrossingSink;
}
