import type { DataSource } from 'typeorm';
import type { ShipmentTemplate } from '@app/database';
import { type CatalogueMapping, CatalogueService } from '../catalogue';
import { checkLegs, checkTemplateReferences, SHIPMENT_TEMPLATE_REFERENCES, type ShipmentTemplateRuleFields } from './shipment-templates.rules';

/** Shipment templates: the shared tenant CRUD with the template rules; `mapping` is the api's DTO-bound half. */
export class ShipmentTemplatesService<Input extends Partial<ShipmentTemplateRuleFields>> extends CatalogueService<ShipmentTemplate, Input> {
  constructor(dataSource: DataSource, mapping: CatalogueMapping<ShipmentTemplate, Input>) {
    super(dataSource, {
      table: 'shipment_templates',
      noun: 'Shipment template',
      ...mapping,
      check: async (manager, accountId, fields) => {
        checkLegs(fields);
        await checkTemplateReferences(manager, accountId, fields);
      },
      references: SHIPMENT_TEMPLATE_REFERENCES,
    });
  }
}
