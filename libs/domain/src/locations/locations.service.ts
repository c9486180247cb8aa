import type { DataSource } from 'typeorm';
import type { Location } from '@app/database';
import { type CatalogueMapping, CatalogueService } from '../catalogue';
import { LOCATION_REFERENCES } from './locations.rules';

/** Locations: the shared tenant CRUD with the location rules; `mapping` is the api's DTO-bound half. */
export class LocationsService<Input extends object> extends CatalogueService<Location, Input> {
  constructor(dataSource: DataSource, mapping: CatalogueMapping<Location, Input>) {
    super(dataSource, { table: 'locations', noun: 'Location', ...mapping, references: LOCATION_REFERENCES });
  }
}
