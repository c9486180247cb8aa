import type { DataSource } from 'typeorm';
import { Location } from '@app/database';
import type { CatalogueMapping } from '../catalogue/catalogue-family';
import { CatalogueService } from '../catalogue/catalogue.service';
import { LOCATION_REFERENCES } from './locations.rules';

/** Locations: the shared tenant CRUD with the location rules; `mapping` is the api's DTO-bound half. */
export class LocationsService<Input extends object> extends CatalogueService<Location, Input> {
  constructor(dataSource: DataSource, mapping: CatalogueMapping<Location, Input>) {
    super(dataSource, { entity: Location, noun: 'Location', ...mapping, references: LOCATION_REFERENCES });
  }
}
