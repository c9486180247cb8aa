/**
 * PostgreSQL failures that say "the database is busy or away", not "this request is wrong":
 * waiting too long for a pooled connection, a statement cancelled by `statement_timeout`, a session
 * ended by the server, a refused connection. The client may retry them, so they answer 503 with
 * Retry-After instead of a 500.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '57014', // query_canceled (statement_timeout)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '25P03', // idle_in_transaction_session_timeout
  '53300', // too_many_connections
  '08000', '08003', '08006', '08001', '08004', // connection exceptions
]);

const UNAVAILABLE_MESSAGES = [/timeout exceeded when trying to connect/i, /Connection terminated/i, /connect ECONNREFUSED/i];

/** TypeORM releases a query runner whose connection the server ended (e.g. idle-in-transaction timeout). */
const UNAVAILABLE_NAMES = new Set(['QueryRunnerAlreadyReleasedError']);

interface MaybeDatabaseError {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  driverError?: MaybeDatabaseError;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const candidate = error as MaybeDatabaseError;
  for (const item of [candidate, candidate.driverError]) {
    if (!item) continue;
    if (typeof item.name === 'string' && UNAVAILABLE_NAMES.has(item.name)) return true;
    if (typeof item.code === 'string' && UNAVAILABLE_SQLSTATES.has(item.code)) return true;
    if (typeof item.message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(item.message as string))) return true;
  }
  return false;
}
