/** Front door of the shipment-templates family: shipment templates. Services and types only; its repositories stay inside the folder. */
export * from './shipment-template-references';
export * from './shipment-templates.rules';
export * from './shipment-templates.service';
