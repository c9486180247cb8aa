import type { ErrorCode } from '@app/vocabulary';

export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * A refusal the client can act on: `code` is the stable, documented identifier clients branch on
 * (ERROR_CODES), with a short title, what went wrong and, for bad input, which fields. It knows no
 * transport: the api's problem-details filter decides the HTTP status from the code.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly title: string,
    readonly detail?: string,
    readonly errors?: FieldError[],
  ) {
    super(detail ?? title);
  }
}

export class NotFoundError extends DomainError {
  constructor(what = 'Resource') {
    super('not_found', 'Not found', `${what} does not exist or is not visible to this account.`);
  }
}

export class ValidationFailedError extends DomainError {
  constructor(errors: FieldError[], detail = 'The request has invalid fields.') {
    super('validation_failed', 'Validation failed', detail, errors);
  }
}

/** Convenience for a single-field validation refusal. */
export function invalidField(field: string, message: string, code = 'invalid'): ValidationFailedError {
  return new ValidationFailedError([{ field, code, message }], message);
}

export class ConflictError extends DomainError {
  constructor(code: ErrorCode, detail: string, title = 'Conflict') {
    super(code, title, detail);
  }
}
