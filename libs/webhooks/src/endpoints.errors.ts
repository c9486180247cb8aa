/** Bad input: names the field, so the panel can show it next to the input (400 validation_failed). */
export class WebhookInputError extends Error {
  readonly code = 'validation_failed';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

/** An endpoint of this id exists already: a resubmitted form. Nothing was changed. */
export class WebhookEndpointAlreadyCreatedError extends Error {}

/** Missing or another tenant's endpoint or event: the same answer (404 not_found). */
export class WebhookNotFoundError extends Error {
  readonly code = 'not_found';
}

/** The account has as many endpoints as it may (WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT): nothing was created (400). */
export class WebhookEndpointLimitError extends Error {
  readonly code = 'too_many_webhook_endpoints';
  constructor(readonly limit: number) {
    super(`an account can register at most ${limit} webhook endpoints; delete one before adding another`);
  }
}

/** Refused in the endpoint's current state, e.g. a test event to a disabled endpoint (409). */
export class WebhookStateError extends Error {
  constructor(
    readonly code: 'endpoint_disabled' | 'event_not_subscribed' | 'event_expired',
    message: string,
  ) {
    super(message);
  }
}
