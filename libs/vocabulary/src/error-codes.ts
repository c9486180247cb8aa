/**
 * Every stable `code` a problem-details body can carry, with its status and meaning. The OpenAPI
 * description publishes this table; add a row when a feature adds a refusal.
 */
export const ERROR_CODES = {
  invalid_token: { status: 401, description: 'No token, bad signature, expired token or revoked credential.' },
  insufficient_scope: { status: 403, description: 'The token lacks a scope the operation requires.' },
  route_not_authorized: { status: 403, description: 'The route declares no scope and is refused by default.' },
  account_selection_required: {
    status: 400,
    description: 'The credential has several accounts and the request has no X-Service-Account-ID.',
  },
  account_not_allowed: {
    status: 403,
    description: 'X-Service-Account-ID names an account not on the allow-list, or not an active customer account.',
  },
  not_found: { status: 404, description: 'The resource does not exist or belongs to another tenant.' },
  method_not_allowed: { status: 405, description: 'The path exists but not with this method.' },
  validation_failed: { status: 400, description: 'Malformed body, bad value or unknown field; see `errors`.' },
  invalid_cursor: { status: 400, description: 'The paging cursor is malformed, tampered with or from another list.' },
  idempotency_key_required: { status: 400, description: 'A record-creating POST was sent without Idempotency-Key.' },
  idempotency_key_invalid: { status: 400, description: 'Idempotency-Key is not 8 to 128 visible ASCII characters.' },
  idempotency_key_reused: { status: 422, description: 'The Idempotency-Key was already used for a different request.' },
  idempotency_request_in_progress: {
    status: 409,
    description: 'The first request with this Idempotency-Key is still running; retry later.',
  },
  in_use: {
    status: 409,
    description: 'The record is still referenced (by a shipment template, an active shipment, or a device’s current settings) and cannot be deleted.',
  },
  role_not_assignable: { status: 409, description: 'COMPANY_ADMIN cannot be granted through the API (user update, invitation).' },
  company_admin_protected: {
    status: 409,
    description: 'A company administrator cannot be deactivated and its role cannot be changed through the API.',
  },
  user_exists: { status: 409, description: 'A user of this account already has this e-mail address.' },
  already_invited: { status: 409, description: 'The e-mail address already has a pending invitation to this account.' },
  invitation_already_accepted: { status: 409, description: 'The invitation was accepted and can no longer be revoked.' },
  service_unavailable: {
    status: 503,
    description: 'The database did not answer within its bounds (pool wait, statement timeout); nothing was done. Retry after `Retry-After` seconds.',
  },
  range_too_large: {
    status: 400,
    description: 'The telemetry range [from, to) is longer than the configured maximum (TELEMETRY_MAX_RANGE_DAYS).',
  },
  shipment_not_active: {
    status: 409,
    description: 'The shipment is completed: it can no longer be updated or completed again (of concurrent completions exactly one succeeds).',
  },
  shipment_completed: { status: 409, description: 'A completed shipment is never deleted; its history stays untouched.' },
  too_many_devices: { status: 400, description: 'A shipment carries one to five devices.' },
  device_not_eligible: {
    status: 400,
    description:
      'A device of the request is not eligible for the shipment: unknown, not approved, deleted, not owned by this account, or already in another active shipment (each named in `errors`).',
  },
  alarm_already_resolved: { status: 409, description: 'PATCH `{"resolved": false}` on a resolved alarm: alarms are not reopened.' },
  payload_too_large: { status: 413, description: 'The request body is larger than 1 MiB.' },
  unsupported_media_type: { status: 415, description: 'The request body is not JSON (or form-encoded for the token).' },
  rate_limited: { status: 429, description: 'Too many requests; wait for Retry-After seconds.' },
  internal_error: { status: 500, description: 'Unexpected failure; the error id is in the service logs.' },
} satisfies Record<string, { status: number; description: string }>;

/** Every `code` a problem-details answer can carry. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The token endpoint's RFC 6749 §5.2 `error` values (its answers are not problem details). */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope';
