/** The shipment's states and the kinds of its events (the record, the rows and the API share them). */
export const SHIPMENT_STATUSES = ['active', 'completed'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

export const SHIPMENT_EVENT_KINDS = ['geofence_entry', 'geofence_exit', 'arrival'] as const;
export type ShipmentEventKind = (typeof SHIPMENT_EVENT_KINDS)[number];
