import { errorAndCause, isConnectionFailure } from '@app/database';

/**
 * PostgreSQL failures that say "the database is busy or away", not "this request is wrong": the
 * server away (see isConnectionFailure), or busy — a statement cancelled by `statement_timeout`,
 * a transaction ended for idling, no connection slot left. The client may retry them, so they
 * answer 503 with Retry-After instead of a 500.
 */
const BUSY_SQLSTATES = new Set([
  '57014', // query_canceled (statement_timeout)
  '25P03', // idle_in_transaction_session_timeout
  '53300', // too_many_connections
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  return isConnectionFailure(error) || errorAndCause(error).some(({ code }) => typeof code === 'string' && BUSY_SQLSTATES.has(code));
}
