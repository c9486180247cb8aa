import { ApiError, statusOf } from '../common/api-error';

/** No token, a bad one, an expired one, or one of a revoked credential (RFC 6750 §3.1 invalid_token). */
export class InvalidTokenError extends ApiError {
  constructor(detail = 'The access token is missing, invalid or expired.') {
    super(statusOf('invalid_token'), 'invalid_token', 'Unauthorized', detail, undefined, {
      'WWW-Authenticate': `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`,
    });
  }
}

/** The token lacks a scope the operation requires (RFC 6750 §3.1 insufficient_scope). */
export class InsufficientScopeError extends ApiError {
  constructor(required: string[]) {
    super(
      statusOf('insufficient_scope'),
      'insufficient_scope',
      'Insufficient scope',
      `This operation requires the scope(s): ${required.join(' ')}.`,
      undefined,
      { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${required.join(' ')}"` },
    );
  }
}
