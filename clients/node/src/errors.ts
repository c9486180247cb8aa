import type { FieldError } from './generated/models';

/** Base class of everything this library throws. */
export class ColdchainError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export interface ApiErrorInit {
  status: number;
  code: string;
  title: string;
  detail?: string;
  type?: string;
  errors?: FieldError[];
  requestId?: string;
  method: string;
  path: string;
  retryAfterSeconds?: number;
  errorId?: string;
  body?: unknown;
}

/**
 * The service answered with an error: an RFC 9457 problem document (`code`, `title`, `detail`,
 * field `errors`) or, from the token endpoint, an RFC 6749 error (`code` = its `error`).
 * Never carries a secret, a token or a request header.
 */
export class ApiError extends ColdchainError {
  readonly status: number;
  /** Stable machine-readable code, e.g. `not_found`, `validation_failed`, `shipment_not_active`. */
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  /** The problem type URI. */
  readonly type: string | undefined;
  /** Field errors (`validation_failed`, `device_not_eligible`, ...); empty when none. */
  readonly errors: FieldError[];
  /** `X-Request-ID` of the response: quote it to support. */
  readonly requestId: string | undefined;
  /** Present on 500 answers: the error id in the service logs. */
  readonly errorId: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;
  readonly method: string;
  /** Path of the request, without its query string. */
  readonly path: string;
  /** The parsed error body, as received. */
  readonly body: unknown;

  constructor(init: ApiErrorInit) {
    const fields = init.errors?.length ? ` [${init.errors.map((e) => `${e.field}: ${e.code}`).join('; ')}]` : '';
    const request = init.requestId ? ` (request ${init.requestId})` : '';
    super(`${init.method} ${init.path} failed with ${init.status} ${init.code}: ${init.detail ?? init.title}${fields}${request}`);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.type = init.type;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
    this.errorId = init.errorId;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.method = init.method;
    this.path = init.path;
    this.body = init.body;
  }
}

/** 400: malformed body, bad value, unknown field, bad idempotency key, too many devices ... */
export class BadRequestError extends ApiError {}
/** 401: missing/expired/invalid token, or (from the token endpoint) bad client credentials. */
export class AuthenticationError extends ApiError {}
/** 403: the token lacks a scope, or the account is not on the credential's allow-list. */
export class PermissionDeniedError extends ApiError {}
/** 404: no such record in the selected account. */
export class NotFoundError extends ApiError {}
/** 409: a state conflict (`shipment_not_active`, `in_use`, `idempotency_request_in_progress` ...). */
export class ConflictError extends ApiError {}
/** 422: the Idempotency-Key was already used for a different request. */
export class UnprocessableEntityError extends ApiError {}
/** 429: rate limited (after the client's own retries). */
export class RateLimitError extends ApiError {}
/** 5xx (after the client's own retries where they apply). */
export class ServerError extends ApiError {}

export function apiErrorFor(init: ApiErrorInit): ApiError {
  const { status } = init;
  if (status === 400) return new BadRequestError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 403) return new PermissionDeniedError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 422) return new UnprocessableEntityError(init);
  if (status === 429) return new RateLimitError(init);
  if (status >= 500) return new ServerError(init);
  return new ApiError(init);
}

/** The request never got an answer: DNS, refused or reset connection, TLS ... (after retries). */
export class ConnectionError extends ColdchainError {}

/** No answer within the configured timeout (after retries). */
export class TimeoutError extends ConnectionError {}

/** A webhook request failed verification: do not process it (answer 400 or 401). */
export class WebhookVerificationError extends ColdchainError {}
