/**
 * Whether a failure says "the server is away" (refused, ended, shutting down, no connection to be
 * had in time), not "this statement is wrong". The read-replica router fails over on it, and the
 * api answers it with 503 + Retry-After. TypeORM wraps the driver's error in `driverError`; both
 * are looked at.
 */
const SERVER_AWAY_SQLSTATES = /^(08|57P0[123]$)/; // connection exceptions; admin/crash shutdown, cannot connect now
const SERVER_AWAY_MESSAGES = /ECONNREFUSED|ECONNRESET|Connection terminated|timeout exceeded when trying to connect|not queryable/i;
/** TypeORM releases a query runner whose connection the server ended. */
const SERVER_AWAY_NAMES = new Set(['QueryRunnerAlreadyReleasedError']);

interface MaybeDatabaseError {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  driverError?: MaybeDatabaseError;
}

/** The error and, when TypeORM wrapped it, the driver's error inside. */
export function errorAndCause(error: unknown): MaybeDatabaseError[] {
  if (!error || typeof error !== 'object') return [];
  const candidate = error as MaybeDatabaseError;
  return candidate.driverError && typeof candidate.driverError === 'object' ? [candidate, candidate.driverError] : [candidate];
}

export function isConnectionFailure(error: unknown): boolean {
  return errorAndCause(error).some(
    ({ name, code, message }) =>
      (typeof name === 'string' && SERVER_AWAY_NAMES.has(name)) ||
      (typeof code === 'string' && SERVER_AWAY_SQLSTATES.test(code)) ||
      (typeof message === 'string' && SERVER_AWAY_MESSAGES.test(message)),
  );
}
