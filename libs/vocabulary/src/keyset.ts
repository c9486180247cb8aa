import { UUID_PATTERN } from './formats';

/**
 * The typed position of a keyset-paged list: what the last row of a page was, so the next page
 * starts after it. A `Keyset` turns the position into the cursor's JSON array and back; decoding
 * refuses (null) anything that is not exactly such a position, so a repository never sees an
 * untyped value.
 */
export interface Keyset<K> {
  encode(position: K): unknown[];
  decode(raw: unknown[]): K | null;
}

/** One page of a keyset-paged list: at most `limit` rows after `after` (null: the first page). */
export interface KeysetPage<K> {
  limit: number;
  after: K | null;
}

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;
/** PostgreSQL's exact text form of a timestamptz (microseconds kept), as maintenance keys use it. */
const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);
/** The PostgreSQL form as ISO (`T`, offset with minutes), for a validity check by Date.parse. */
const asIso = (value: string): string => value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00');
const isTimestamp = (value: unknown): value is string =>
  typeof value === 'string' && (ISO_TIMESTAMP.test(value) || PG_TIMESTAMP.test(value)) && !Number.isNaN(Date.parse(asIso(value)));

/** Rows ordered by a UUID id. */
export const BY_UUID: Keyset<string> = {
  encode: (id) => [id],
  decode: ([id, ...rest]) => (rest.length === 0 && isUuid(id) ? id : null),
};

/** Rows ordered by a positive integer id (shipments). */
export const BY_INTEGER: Keyset<number> = {
  encode: (id) => [id],
  decode: ([id, ...rest]) => (rest.length === 0 && typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : null),
};

/** Rows ordered by time alone (telemetry points and buckets): the ISO timestamp of the last row. */
export const BY_TIME: Keyset<Date> = {
  encode: (at) => [at.toISOString()],
  decode: ([at, ...rest]) => (rest.length === 0 && isTimestamp(at) ? new Date(at) : null),
};

/** Rows ordered by time, then a UUID (tracked points: device; maintenance: record id). */
export interface TimeAndId {
  /** The timestamp as the database's exact text (microseconds kept) or ISO. */
  at: string;
  id: string;
}

export const BY_TIME_AND_UUID: Keyset<TimeAndId> = {
  encode: ({ at, id }) => [at, id],
  decode: ([at, id, ...rest]) => (rest.length === 0 && isTimestamp(at) && isUuid(id) ? { at, id } : null),
};
