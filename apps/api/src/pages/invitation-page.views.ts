import { type LinkProblem, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type PasswordProblem } from '@app/domain';
import { SIGN_IN_PATH } from '../panel/panel-paths';
import { html, type Html } from '../common/html';

export interface FormModel {
  action: string;
  token: string;
  email: string;
  fullName: string;
  accountName: string;
  problems: PasswordProblem[];
}

export interface View {
  title: string;
  body: Html;
}

function fieldError(id: string, problems: PasswordProblem[], field: PasswordProblem['field']): Html {
  const messages = problems.filter((p) => p.field === field).map((p) => p.message);
  return messages.length > 0 ? html`<p class="field-error" id="${id}">${messages.join(' ')}</p>` : html``;
}

/** Plain HTML form; works without JavaScript. Errors are announced (role=alert) and tied to their fields. */
export function passwordFormView(model: FormModel): View {
  const passwordInvalid = model.problems.some((p) => p.field === 'password');
  const confirmationInvalid = model.problems.some((p) => p.field === 'password_confirmation');
  const summary =
    model.problems.length > 0
      ? html`<div class="errors" role="alert" id="form-errors"><p>Please correct the following:</p><ul>${model.problems.map((p) => html`<li>${p.message}</li>`)}</ul></div>`
      : html``;
  return {
    title: model.problems.length > 0 ? 'Error: choose your password' : 'Choose your password',
    body: html`<h1>Choose your password</h1>
<p>${model.fullName}, ${model.accountName} invited you to Cold Chain Telemetry. Choose a password to activate your account.</p>
${summary}
<form method="post" action="${model.action}" novalidate>
<input type="hidden" name="token" value="${model.token}">
<label for="email">E-mail address</label>
<input id="email" name="username" type="email" value="${model.email}" autocomplete="username" readonly>
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" aria-describedby="password-hint${passwordInvalid ? ' password-error' : ''}" aria-invalid="${passwordInvalid ? 'true' : 'false'}">
<p class="hint" id="password-hint">At least ${PASSWORD_MIN_LENGTH} characters. A few unrelated words make a good password.</p>
${fieldError('password-error', model.problems, 'password')}
<label for="password_confirmation">Repeat the password</label>
<input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required maxlength="${PASSWORD_MAX_LENGTH}"${confirmationInvalid ? html` aria-describedby="password_confirmation-error"` : html``} aria-invalid="${confirmationInvalid ? 'true' : 'false'}">
${fieldError('password_confirmation-error', model.problems, 'password_confirmation')}
<button type="submit">Set password</button>
</form>`,
  };
}

export function acceptedView(email: string, accountName: string): View {
  return {
    title: 'Password set',
    body: html`<h1>Your password is set</h1>
<p role="status">Your account <strong>${email}</strong> at ${accountName} is active. You can now sign in with this e-mail address and your new password.</p>
<p><a href="${SIGN_IN_PATH}">Sign in to the company panel</a></p>`,
  };
}

const PROBLEMS: Record<LinkProblem, { status: number; title: string; text: string }> = {
  invalid: { status: 400, title: 'This link is not valid', text: 'The link is incomplete or was never issued. Open the link from your invitation e-mail again, or ask your administrator for a new invitation.' },
  expired: { status: 410, title: 'This invitation has expired', text: 'Invitation links work for 7 days. Ask your administrator to invite you again.' },
  revoked: { status: 410, title: 'This invitation was withdrawn', text: 'Your administrator revoked this invitation. Ask them for a new one if you still need access.' },
  used: { status: 410, title: 'This invitation was already used', text: 'A password has already been set with this link. Sign in with your e-mail address and password.' },
  account_inactive: { status: 410, title: 'This account is not active', text: 'The company account of this invitation is no longer active. Contact your administrator.' },
  user_exists: { status: 409, title: 'You already have an account', text: 'A user with this e-mail address already exists. Sign in with it, or ask your administrator for help.' },
};

export function linkProblemView(problem: LinkProblem): View & { status: number } {
  const { status, title, text } = PROBLEMS[problem];
  return { status, title, body: html`<h1>${title}</h1><p role="alert">${text}</p>` };
}

export function unexpectedErrorView(): View {
  return { title: 'Something went wrong', body: html`<h1>Something went wrong</h1><p role="alert">Please try again in a few minutes.</p>` };
}
