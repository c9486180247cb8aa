/**
 * Outcomes shown after a redirect (`?notice=<code>`): a fixed list, so nothing from the URL is
 * ever echoed into the page.
 */
export const NOTICES = {
  signed_out: { error: false, text: 'You are signed out.' },
  session_expired: { error: true, text: 'Your session has ended. Please sign in again.' },
  credential_revoked: { error: false, text: 'The credential was revoked. Its access tokens stop working on their next API call.' },
  credential_already_revoked: { error: true, text: 'This credential was already revoked.' },
  credential_already_created: {
    error: true,
    text: 'That form was already submitted: the credential exists, and its secret was shown only once. If it was not copied, revoke the credential and create a new one.',
  },
  endpoint_already_created: {
    error: true,
    text: 'That form was already submitted: the endpoint exists, and its signing secret was shown only once. If it was not copied, rotate the secret on the endpoint’s page.',
  },
  test_queued: { error: false, text: 'A test event was queued. Its delivery attempt appears in the list below once it has been sent: reload this page to see it.' },
  resend_queued: { error: false, text: 'The event was queued to be sent again. The new attempt appears in the list below once it has been sent.' },
  endpoint_enabled: { error: false, text: 'The endpoint is enabled again; new events will be delivered to it.' },
  endpoint_disabled: { error: true, text: 'This endpoint is disabled. Enable it first, then try again.' },
  event_not_subscribed: { error: true, text: 'This endpoint no longer subscribes to the type of that event, so it cannot be sent again.' },
  event_not_found: { error: true, text: 'That event no longer exists.' },
  signature_format_saved: { error: false, text: 'The signature format was saved; the next delivery attempt uses it. The signing secret is unchanged.' },
  signature_format_invalid: { error: true, text: 'Choose one of the signature formats listed. Nothing was changed.' },
  bulk_resend_queued: { error: false, text: 'The listed events were queued to be sent again to the endpoint, once each. Their attempts appear on the endpoint’s page.' },
  bulk_resend_partial: {
    error: false,
    text: 'The oldest of the listed events were queued to be sent again, as many as one resend sends. Resend again to queue the rest.',
  },
  bulk_resend_none: { error: true, text: 'No listed event could be sent again: each is already waiting to be sent to the endpoint, or its content is no longer stored.' },
  event_expired: { error: true, text: 'That event is older than the retention period: its content is no longer stored, so it cannot be sent again.' },
} as const;

export type NoticeCode = keyof typeof NOTICES;

export const noticeFrom = (value: unknown): NoticeCode | null =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(NOTICES, value) ? (value as NoticeCode) : null;
