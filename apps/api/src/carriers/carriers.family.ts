import { Carrier, type TransportMode } from '@app/database';
import { ValidationFailedError } from '../common/api-error';
import type { CatalogueFamily, ReferenceCheck, WritableFields } from '../common/catalogue/catalogue-family';
import { referencedByShipmentTemplates } from '../shipment-templates/shipment-template-references';
import type { CreateCarrierDto } from './dto/create-carrier.dto';
import { referencedByActiveShipments } from '../shipments/shipment-references';

/** Which transport modes each identifier belongs to. */
export const IDENTIFIER_MODES: Record<'scac' | 'iata_code' | 'mmsi' | 'imo', readonly TransportMode[]> = {
  scac: ['road', 'rail', 'sea', 'multimodal'],
  iata_code: ['air', 'multimodal'],
  mmsi: ['sea', 'multimodal'],
  imo: ['sea', 'multimodal'],
};

/** An identifier set on a carrier of another mode (also after a PATCH of `mode`) is a 400. */
export function checkIdentifiersApply(fields: WritableFields<CreateCarrierDto>): void {
  const errors = (Object.keys(IDENTIFIER_MODES) as Array<keyof typeof IDENTIFIER_MODES>)
    .filter((field) => fields[field] !== null && !IDENTIFIER_MODES[field].includes(fields.mode))
    .map((field) => ({
      field,
      code: 'not_applicable',
      message: `${field} applies only to ${IDENTIFIER_MODES[field].join(', ')} carriers; clear it (null) for a ${fields.mode} carrier`,
    }));
  if (errors.length > 0) throw new ValidationFailedError(errors);
}

/** Who may still point at a carrier. */
export const CARRIER_REFERENCES: ReferenceCheck[] = [
  referencedByShipmentTemplates('carrier'),
  referencedByActiveShipments(['carrier_id'], ['carrier_id']),
];

export const CARRIERS: CatalogueFamily<Carrier, CreateCarrierDto> = {
  entity: Carrier,
  noun: 'Carrier',
  columns: {
    name: 'name',
    mode: 'mode',
    contact_name: 'contactName',
    contact_email: 'contactEmail',
    contact_phone: 'contactPhone',
    scac: 'scac',
    iata_code: 'iataCode',
    mmsi: 'mmsi',
    imo: 'imo',
  },
  defaults: { contact_name: null, contact_email: null, contact_phone: null, scac: null, iata_code: null, mmsi: null, imo: null },
  check: async (_manager, _accountId, fields) => checkIdentifiersApply(fields),
  references: CARRIER_REFERENCES,
};
