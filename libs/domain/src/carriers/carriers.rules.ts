import type { TransportMode } from '@app/database';
import type { ReferenceCheck } from '../catalogue';
import { ValidationFailedError } from '../errors';
import { referencedByActiveShipments } from '../shipments';
import { referencedByShipmentTemplates } from '../shipment-templates';

/** Which transport modes each identifier belongs to. */
export const IDENTIFIER_MODES: Record<'scac' | 'iata_code' | 'mmsi' | 'imo', readonly TransportMode[]> = {
  scac: ['road', 'rail', 'sea', 'multimodal'],
  iata_code: ['air', 'multimodal'],
  mmsi: ['sea', 'multimodal'],
  imo: ['sea', 'multimodal'],
};

/** The fields of a carrier the identifier rule reads, as the record will be stored. */
export type CarrierIdentifierFields = { mode: TransportMode } & Record<keyof typeof IDENTIFIER_MODES, string | null>;

/** An identifier set on a carrier of another mode (also after a PATCH of `mode`) is a 400. */
export function checkIdentifiersApply(fields: CarrierIdentifierFields): void {
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
