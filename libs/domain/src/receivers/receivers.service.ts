import type { DataSource } from 'typeorm';
import type { Receiver } from '@app/database';
import { type CatalogueMapping, CatalogueService } from '../catalogue';
import { RECEIVER_REFERENCES } from './receivers.rules';

/**
 * Receivers: the shared tenant CRUD with the receiver rules; `mapping` is the api's DTO-bound half.
 * Delivery parties live in a jsonb column of the receiver: they have no identity of their own.
 */
export class ReceiversService<Input extends object> extends CatalogueService<Receiver, Input> {
  constructor(dataSource: DataSource, mapping: CatalogueMapping<Receiver, Input>) {
    super(dataSource, { table: 'receivers', noun: 'Receiver', ...mapping, references: RECEIVER_REFERENCES });
  }
}
