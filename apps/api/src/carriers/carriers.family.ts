import type { Carrier } from '@app/database';
import type { CatalogueMapping } from '@app/domain';
import type { CreateCarrierDto } from './dto/create-carrier.dto';

/**
 * The DTO-bound half of the carrier family: API field → entity property (keyed by the create DTO,
 * so the two cannot drift apart) and the defaults of optional fields. The rules (identifier modes,
 * who references a carrier) and the CRUD are framework-free: libs/domain/src/carriers/.
 */
export const CARRIERS: CatalogueMapping<Carrier, CreateCarrierDto> = {
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
};
