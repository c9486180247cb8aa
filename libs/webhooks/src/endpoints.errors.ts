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

/** Refused in the endpoint's current state, e.g. a test event to a disabled endpoint (409). */
export class WebhookStateError extends Error {
  constructor(
    readonly code: 'endpoint_disabled' | 'event_not_subscribed',
    message: string,
  ) {
    super(message);
  }
}
