declare const accountIdBrand: unique symbol;

/**
 * An account id the caller is entitled to act for. Every tenant-scoped repository method takes
 * one, so the compiler refuses a query whose tenant came from anywhere else. Values are made
 * only where the tenant is decided: the tenant guard (from the verified token), the CLI's
 * argument parsing (operator's choice) and the platform processes that read the tenant from a
 * committed row (ingestion, dispatcher, housekeeping). The lint confines `toAccountId` to them.
 */
export type AccountId = string & { readonly [accountIdBrand]: 'AccountId' };

export function toAccountId(value: string): AccountId {
  return value as AccountId;
}
