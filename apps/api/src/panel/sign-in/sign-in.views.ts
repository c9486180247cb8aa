import { html } from '../../common/html';
import { SIGN_IN_PATH } from '../panel-paths';
import { CSRF_FIELD } from '../session/csrf';
import { EMAIL_MAX_LENGTH, PASSWORD_INPUT_MAX_LENGTH } from './sign-in.service';
import type { PanelView } from '../ui/layout';

export interface SignInModel {
  csrfToken: string;
  email: string;
  next: string | null;
  /** One message for the whole form: never says which part was wrong. */
  error: string | null;
  missing: { email: boolean; password: boolean };
  status?: number;
}

export const BAD_CREDENTIALS = 'The e-mail address or password is incorrect, or this account cannot use the panel.';

function fieldError(id: string, shown: boolean, text: string) {
  return shown ? html`<p class="field-error" id="${id}">${text}</p>` : html``;
}

/** Plain form, works without JavaScript; the browser's password manager recognises it. */
export function signInView(model: SignInModel): PanelView {
  const problems = [
    ...(model.error ? [model.error] : []),
    ...(model.missing.email ? ['Enter your e-mail address.'] : []),
    ...(model.missing.password ? ['Enter your password.'] : []),
  ];
  return {
    status: model.status ?? 200,
    title: problems.length > 0 ? 'Error: sign in' : 'Sign in',
    body: html`<div class="narrow">
<h1>Sign in to your company panel</h1>
${problems.length > 0 ? html`<div class="errors" role="alert" id="sign-in-errors">${problems.map((p) => html`<p>${p}</p>`)}</div>` : html``}
<form method="post" action="${SIGN_IN_PATH}" novalidate>
<input type="hidden" name="${CSRF_FIELD}" value="${model.csrfToken}">
${model.next ? html`<input type="hidden" name="next" value="${model.next}">` : html``}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" value="${model.email}" autocomplete="username" required maxlength="${EMAIL_MAX_LENGTH}" spellcheck="false"${model.missing.email ? html` aria-invalid="true" aria-describedby="email-error"` : html``}>
${fieldError('email-error', model.missing.email, 'Enter your e-mail address.')}
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="${PASSWORD_INPUT_MAX_LENGTH}"${model.missing.password ? html` aria-invalid="true" aria-describedby="password-error"` : html``}>
${fieldError('password-error', model.missing.password, 'Enter your password.')}
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="hint">Your password is the one you chose from your invitation e-mail. Platform staff accounts cannot sign in here.</p>
</div>`,
  };
}

export function throttledView(csrfToken: string, email: string, next: string | null, retryAfterSeconds: number): PanelView {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return signInView({
    csrfToken,
    email,
    next,
    error: `Too many sign-in attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.`,
    missing: { email: false, password: false },
    status: 429,
  });
}
