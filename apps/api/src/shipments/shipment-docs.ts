import { ApiParam } from '@nestjs/swagger';
import { problemResponse } from '../common/openapi-responses';

export const SHIPMENT_ID = ApiParam({ name: 'shipment_id', schema: { type: 'integer', minimum: 1 }, description: 'Identifier of the shipment (an integer).' });
export const SHIPMENT_NOT_FOUND = problemResponse(404, 'No shipment with this id in the selected account (`not_found`); deleted shipments are gone too.');
export const BAD_SHIPMENT_BODY = problemResponse(
  400,
  'Invalid body (`validation_failed`, each field named in `errors`, e.g. `reference_not_found` for an id of another account), more than five devices (`too_many_devices`), or an ineligible device (`device_not_eligible`, naming `device_ids.N`).',
);

const ID = (n: number): string => `0190c3a4-5e6f-7a8b-9c0d-00000000000${n}`;
const DEVICE = (n: number): string => `0190c3a4-5e6f-7a8b-9c0d-0000000000d${n}`;

export const CREATE_EXAMPLES = {
  fromTemplate: {
    summary: 'From a shipment template, with planning and three devices',
    value: {
      reference: 'PO-2025-0147',
      name: 'Vaccines Izmir → Ankara',
      template_id: ID(9),
      planned_departure_at: '2025-07-01T06:00:00Z',
      planned_arrival_at: '2025-07-03T18:00:00Z',
      device_ids: [DEVICE(1), DEVICE(2), DEVICE(3)],
    },
  },
  explicitRoute: {
    summary: 'An explicit route with a sea leg (its vessel’s AIS position is shown while the leg is active) and a road leg',
    value: {
      reference: 'PO-2025-0148',
      name: 'Insulin Izmir → Istanbul → Ankara',
      origin_location_id: ID(1),
      destination_location_id: ID(3),
      receiver_id: ID(6),
      carrier_id: ID(4),
      alert_preset_id: ID(7),
      transport_legs: [
        { mode: 'sea', carrier_id: ID(4), vessel_mmsi: '271000123', vessel_imo: '9074729', from_location_id: ID(1), to_location_id: ID(2), planned_arrival_at: '2025-07-02T08:00:00Z' },
        { mode: 'road', carrier_id: ID(5), from_location_id: ID(2), to_location_id: ID(3) },
      ],
      device_ids: [DEVICE(4)],
    },
  },
};
