import { Receiver } from '@app/database';
import { ADDRESS_COLUMNS, EMPTY_ADDRESS } from '../common/catalogue/address';
import type { CatalogueFamily, ReferenceCheck } from '../common/catalogue/catalogue-family';
import { referencedByShipmentTemplates } from '../shipment-templates/shipment-template-references';
import type { CreateReceiverDto } from './dto/create-receiver.dto';
import { referencedByActiveShipments } from '../shipments/shipment-references';

/** Who may still point at a receiver. */
export const RECEIVER_REFERENCES: ReferenceCheck[] = [referencedByShipmentTemplates('receiver'), referencedByActiveShipments(['receiver_id'])];

/** Delivery parties live in a jsonb column of the receiver: they have no identity of their own. */
export const RECEIVERS: CatalogueFamily<Receiver, CreateReceiverDto> = {
  entity: Receiver,
  noun: 'Receiver',
  columns: {
    name: 'name',
    ...ADDRESS_COLUMNS,
    contact_name: 'contactName',
    contact_email: 'contactEmail',
    contact_phone: 'contactPhone',
    notification_emails: 'notificationEmails',
    delivery_parties: 'deliveryParties',
  },
  defaults: {
    ...EMPTY_ADDRESS,
    contact_name: null,
    contact_email: null,
    contact_phone: null,
    notification_emails: [],
    delivery_parties: [],
  },
  references: RECEIVER_REFERENCES,
};
