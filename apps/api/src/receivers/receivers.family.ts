import { Receiver } from '@app/database';
import type { CatalogueFamily, ReferenceCheck } from '../common/catalogue/catalogue-family';
import { referencedByShipmentTemplates } from '../shipment-templates/shipment-template-references';
import type { CreateReceiverDto } from './dto/create-receiver.dto';

/** Who may still point at a receiver. The shipments feature appends its check here. */
export const RECEIVER_REFERENCES: ReferenceCheck[] = [referencedByShipmentTemplates(['receiver_id'])];

/** Delivery parties live in a jsonb column of the receiver: they have no identity of their own. */
export const RECEIVERS: CatalogueFamily<Receiver, CreateReceiverDto> = {
  entity: Receiver,
  noun: 'Receiver',
  columns: {
    name: 'name',
    address_line1: 'addressLine1',
    address_line2: 'addressLine2',
    city: 'city',
    region: 'region',
    postal_code: 'postalCode',
    country: 'country',
    contact_name: 'contactName',
    contact_email: 'contactEmail',
    contact_phone: 'contactPhone',
    notification_emails: 'notificationEmails',
    delivery_parties: 'deliveryParties',
  },
  defaults: {
    address_line1: null,
    address_line2: null,
    city: null,
    region: null,
    postal_code: null,
    country: null,
    contact_name: null,
    contact_email: null,
    contact_phone: null,
    notification_emails: [],
    delivery_parties: [],
  },
  references: RECEIVER_REFERENCES,
};
