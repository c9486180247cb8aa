/** Front door of the catalogue family: the rules the catalogue families share. Services and types only; its repositories stay inside the folder. */
export * from './catalogue-family';
export * from './catalogue.service';
export * from './same-tenant-references';
export * from './template-usage';
