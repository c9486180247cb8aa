/** No valid session: the person is sent to the sign-in page. */
export class PanelSignInRequired extends Error {
  constructor(readonly reason: 'signed_out' | 'session_expired') {
    super(`panel sign-in required (${reason})`);
  }
}

/** Signed in, but the role does not allow this page. */
export class PanelForbidden extends Error {}

/** A form arrived without the token of the session (or the sign-in page) that rendered it. */
export class PanelCsrfRejected extends Error {}

/** No such record in the signed-in company (another company's record is "not found" too). */
export class PanelNotFound extends Error {}

/** Too many requests of this person or company in the current window; nothing was done. */
export class PanelRateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`panel rate limit reached; retry after ${retryAfterSeconds} s`);
  }
}
