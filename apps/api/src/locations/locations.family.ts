import type { Location } from '@app/database';
import type { CatalogueMapping } from '@app/domain';
import { ADDRESS_COLUMNS, EMPTY_ADDRESS } from '../common/catalogue/address';
import { AutomationDto } from './dto/automation.dto';
import type { CreateLocationDto } from './dto/create-location.dto';

/**
 * The DTO-bound half of the location family: API field → entity property (keyed by the create DTO,
 * so the two cannot drift apart) and the defaults of optional fields (the automation default is a
 * DTO instance: its field initialisers). Who references a location, and the CRUD, are
 * framework-free: libs/domain/src/locations/.
 */
export const LOCATIONS: CatalogueMapping<Location, CreateLocationDto> = {
  columns: {
    name: 'name',
    kind: 'kind',
    ...ADDRESS_COLUMNS,
    geofence: 'geofence',
    automation: 'automation',
  },
  defaults: {
    ...EMPTY_ADDRESS,
    automation: new AutomationDto(),
  },
};
