/** Formats shared by the API validation, the ingestion parser and the CLI. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** ISO 8601 date-time with an explicit zone (`Z` or an offset): a local time would be ambiguous. */
export const ZONED_TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Maritime Mobile Service Identity: nine digits. */
export const MMSI_PATTERN = /^[0-9]{9}$/;

/** IMO ship numbers carry a check digit: the first six digits weighted 7..2, summed, mod 10. */
export function isValidImoNumber(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[0-9]{7}$/.test(value)) return false;
  const digits = [...value].map(Number);
  const sum = digits.slice(0, 6).reduce((total, digit, index) => total + digit * (7 - index), 0);
  return sum % 10 === digits[6];
}
