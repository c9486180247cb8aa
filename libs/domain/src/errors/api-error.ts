import type { ErrorCode, OAuthErrorCode } from '@app/vocabulary';
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

/**
 * A refusal the client can act on. One global filter turns it into RFC 9457 problem details;
 * `code` is the stable, documented identifier clients branch on.
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

export class NotFoundError extends ApiError {
  constructor(what = 'Resource') {
    super(404, 'not_found', 'Not found', `${what} does not exist or is not visible to this account.`);
  }
}

export class ValidationFailedError extends ApiError {
  constructor(errors: FieldError[], detail = 'The request has invalid fields.') {
    super(400, 'validation_failed', 'Validation failed', detail, errors);
  }
}

/** Convenience for a single-field validation refusal. */
export function invalidField(field: string, message: string, code = 'invalid'): ValidationFailedError {
  return new ValidationFailedError([{ field, code, message }], message);
}

export class ConflictError extends ApiError {
  constructor(code: ErrorCode, detail: string, title = 'Conflict') {
    super(409, code, title, detail);
  }
}

export class InvalidTokenError extends ApiError {
  constructor(detail = 'The access token is missing, invalid or expired.') {
    super(401, 'invalid_token', 'Unauthorized', detail, undefined, {
      'WWW-Authenticate': `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`,
    });
  }
}

export class InsufficientScopeError extends ApiError {
  constructor(required: string[]) {
    super(
      403,
      'insufficient_scope',
      'Insufficient scope',
      `This operation requires the scope(s): ${required.join(' ')}.`,
      undefined,
      { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${required.join(' ')}"` },
    );
  }
}
