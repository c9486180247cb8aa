import type { AddressedTenantEntity } from '@app/database';

/** The postal address block shared by locations and receivers: API field → entity property. */
export const ADDRESS_COLUMNS = {
  address_line1: 'addressLine1',
  address_line2: 'addressLine2',
  city: 'city',
  region: 'region',
  postal_code: 'postalCode',
  country: 'country',
} as const;

export const EMPTY_ADDRESS = { address_line1: null, address_line2: null, city: null, region: null, postal_code: null, country: null };

export type AddressView = { [K in keyof typeof ADDRESS_COLUMNS]: string | null };

export function presentAddress(record: AddressedTenantEntity): AddressView {
  return {
    address_line1: record.addressLine1,
    address_line2: record.addressLine2,
    city: record.city,
    region: record.region,
    postal_code: record.postalCode,
    country: record.country,
  };
}
