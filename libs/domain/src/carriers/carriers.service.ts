import type { DataSource } from 'typeorm';
import type { Carrier } from '@app/database';
import { type CatalogueMapping, CatalogueService } from '../catalogue';
import { CARRIER_REFERENCES, checkIdentifiersApply, type CarrierIdentifierFields } from './carriers.rules';

/** Carriers: the shared tenant CRUD with the carrier rules; `mapping` is the api's DTO-bound half. */
export class CarriersService<Input extends Partial<CarrierIdentifierFields>> extends CatalogueService<Carrier, Input> {
  constructor(dataSource: DataSource, mapping: CatalogueMapping<Carrier, Input>) {
    super(dataSource, {
      table: 'carriers',
      noun: 'Carrier',
      ...mapping,
      check: async (_manager, _accountId, fields) => checkIdentifiersApply(fields),
      references: CARRIER_REFERENCES,
    });
  }
}
