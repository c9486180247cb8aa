import { DomainError, type FieldError } from '@app/domain';
import { ERROR_CODES, type ErrorCode, type OAuthErrorCode } from '@app/vocabulary';

/**
 * A refusal as the HTTP layer answers it: a status and headers besides the code. One global
 * filter turns it into RFC 9457 problem details. Domain errors carry no status: `toApiError`
 * gives them the one ERROR_CODES maps their code to.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | OAuthErrorCode,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title);
  }
}

/** The status ERROR_CODES gives a code. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** A domain error as the HTTP layer answers it: the status its code has in ERROR_CODES, no headers. */
export function fromDomainError(error: DomainError): ApiError {
  return new ApiError(statusOf(error.code), error.code, error.title, error.detail, error.errors);
}

/** An ApiError as it is, a domain error as the HTTP layer answers it; anything else: null. */
export function asApiError(error: unknown): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return fromDomainError(error);
  return null;
}
