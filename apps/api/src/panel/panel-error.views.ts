import { html } from '../common/html';
import { panelPath, SIGN_IN_PATH } from './panel-paths';
import type { PanelView } from './ui/layout';

export const forbiddenView = (): PanelView => ({
  status: 403,
  title: 'Not allowed',
  body: html`<h1>You cannot use this page</h1>
<p role="alert">Your role does not allow this page. API credentials and the audit log are for company administrators; webhooks are managed by company administrators and managers.</p>
<p><a href="${panelPath()}">Back to the overview</a></p>`,
});

export const csrfRejectedView = (signedIn: boolean): PanelView => ({
  status: 403,
  title: 'Form expired',
  body: html`<h1>This form could not be accepted</h1>
<p role="alert">The form was out of date or did not come from this panel, so nothing was changed. Go back, reload the page and try again.</p>
<p><a href="${signedIn ? panelPath() : SIGN_IN_PATH}">${signedIn ? 'Back to the overview' : 'Back to sign-in'}</a></p>`,
});

export const notFoundView = (): PanelView => ({
  status: 404,
  title: 'Not found',
  body: html`<h1>Not found</h1><p role="alert">There is no such page or record in your company.</p><p><a href="${panelPath()}">Back to the overview</a></p>`,
});

export const unexpectedErrorView = (): PanelView => ({
  status: 500,
  title: 'Something went wrong',
  body: html`<h1>Something went wrong</h1><p role="alert">Nothing may have been saved. Please try again in a few minutes.</p>`,
});

export const rateLimitedView = (retryAfterSeconds: number): PanelView => {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  const wait = retryAfterSeconds < 60 ? `${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
  return {
    status: 429,
    title: 'Too many requests',
    body: html`<h1>Too many requests</h1>
<p role="alert">Nothing was changed: too many changes were sent in a short time. Wait ${wait} and try again.</p>
<p><a href="${panelPath()}">Back to the overview</a></p>`,
  };
};
