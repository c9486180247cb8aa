import type { Receiver } from '@app/database';
import type { CatalogueMapping } from '@app/domain';
import { ADDRESS_COLUMNS, EMPTY_ADDRESS } from '../common/catalogue/address';
import type { CreateReceiverDto } from './dto/create-receiver.dto';

/**
 * The DTO-bound half of the receiver family: API field → entity property (keyed by the create DTO,
 * so the two cannot drift apart) and the defaults of optional fields. Who references a receiver,
 * and the CRUD, are framework-free: libs/domain/src/receivers/.
 * Delivery parties live in a jsonb column of the receiver: they have no identity of their own.
 */
export const RECEIVERS: CatalogueMapping<Receiver, CreateReceiverDto> = {
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
};
