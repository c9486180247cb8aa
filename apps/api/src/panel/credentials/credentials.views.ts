import { type CreatedCredential, type OwnedCredential } from '@app/domain';
import { html, type Html } from '../../common/html';
import { panelPath } from '../panel-paths';
import type { PanelContext } from '../session/panel-context';
import { checkboxGroup, describedBy, fieldError, type FieldProblem, problemSummary, reasonField, secretField } from '../ui/form-parts';
import { csrfField, type PanelView, postButton, timeHtml } from '../ui/layout';
import { submissionField } from '../ui/form-submission';
import { ALL_SCOPES } from '@app/vocabulary';

export const CREDENTIAL_NAME_MAX_LENGTH = 100;

function status(credential: OwnedCredential): Html {
  return credential.revoked_at
    ? html`<span class="status bad">Revoked</span> ${timeHtml(credential.revoked_at)}`
    : html`<span class="status ok">Active</span>`;
}

const scopeList = (scopes: string[]): Html => html`<ul>${scopes.map((s) => html`<li><code>${s}</code></li>`)}</ul>`;
const accountList = (accounts: OwnedCredential['accounts']): Html => html`<ul>${accounts.map((a) => html`<li>${a.name}</li>`)}</ul>`;

export function credentialListView(credentials: OwnedCredential[]): PanelView {
  const rows = credentials.map(
    (c) => html`<tr>
<td data-label="Name">${c.name}</td>
<td data-label="Client ID"><code>${c.client_id}</code></td>
<td data-label="Scopes">${scopeList(c.scopes)}</td>
<td data-label="Accounts">${accountList(c.accounts)}</td>
<td data-label="Created">${timeHtml(c.created_at)}</td>
<td data-label="Last used">${timeHtml(c.last_used_at)}</td>
<td data-label="Status">${status(c)}</td>
<td data-label="Actions">${c.revoked_at ? html`` : html`<a href="${panelPath('credentials', c.id, 'revoke')}">Revoke<span class="visually-hidden"> ${c.name}</span></a>`}</td>
</tr>`,
  );
  return {
    nav: 'credentials',
    title: 'API credentials',
    body: html`<h1>API credentials</h1>
<p>Client credentials let your backend systems call the public API (OAuth 2.0 client credentials). Each one is limited to the scopes chosen when it was created and to your company's account.</p>
<p><a class="button" href="${panelPath('credentials', 'new')}">Create a credential</a></p>
${credentials.length === 0
  ? html`<p class="empty">Your company has no API credentials yet.</p>`
  : html`<div class="table-wrap"><table class="responsive"><caption>Credentials of your company (${credentials.length})</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Client ID</th><th scope="col">Scopes</th><th scope="col">Accounts</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table></div>`}`,
  };
}

export interface CredentialFormModel {
  /** The form's submission id (form-submission.ts). */
  submission: string;
  name: string;
  scopes: string[];
  problems: FieldProblem[];
}

export function credentialFormView(context: PanelContext, model: CredentialFormModel): PanelView {
  return {
    nav: 'credentials',
    status: model.problems.length > 0 ? 400 : 200,
    title: model.problems.length > 0 ? 'Error: create an API credential' : 'Create an API credential',
    body: html`<p class="breadcrumb"><a href="${panelPath('credentials')}">API credentials</a></p>
<h1>Create an API credential</h1>
${problemSummary(model.problems)}
<form method="post" action="${panelPath('credentials')}" novalidate>
${csrfField(context)}${submissionField(model.submission)}
<label for="name">Name</label>
<input type="text" id="name" name="name" value="${model.name}" required maxlength="${CREDENTIAL_NAME_MAX_LENGTH}"${describedBy(model.problems, 'name', 'name-hint')}>
<p class="hint" id="name-hint">What the integration is, e.g. “ERP shipment sync”.</p>
${fieldError(model.problems, 'name')}
${checkboxGroup({ name: 'scopes', legend: 'Scopes', values: ALL_SCOPES, checked: model.scopes, problems: model.problems, hint: 'Choose only what the integration needs. A credential can do nothing outside these scopes.' })}
<p class="hint">The credential works only for your company's account, <strong>${context.account.name}</strong>.</p>
${reasonField()}
<div class="actions"><button type="submit">Create credential</button><a href="${panelPath('credentials')}">Cancel</a></div>
</form>`,
  };
}

/** The only page that ever shows the client secret. */
export function credentialCreatedView(context: PanelContext, created: CreatedCredential, tokenUrl: string): PanelView {
  return {
    nav: 'credentials',
    secret: true,
    title: 'Credential created',
    body: html`<p class="breadcrumb"><a href="${panelPath('credentials')}">API credentials</a></p>
<h1>Credential created</h1>
<div class="warning" role="note">
<p><strong>Copy the client secret now: it is shown only this once.</strong> It cannot be displayed again; if it is lost, revoke this credential and create a new one.</p>
<p>The client secret belongs in a backend secret vault. Never place it in a browser or mobile application, a source repository, a ticket or an e-mail.</p>
</div>
<div class="card">
<dl class="summary">
<dt>Name</dt><dd>${created.name}</dd>
<dt>Client ID</dt><dd><code id="client-id">${created.client_id}</code></dd>
<dt>Scopes</dt><dd>${created.scopes.join(' ')}</dd>
<dt>Account</dt><dd>${context.account.name}</dd>
<dt>Token endpoint</dt><dd><code>${tokenUrl}</code></dd>
</dl>
${secretField('client-secret', 'Client secret', created.client_secret)}
</div>
<p><a href="${panelPath('credentials')}">I have stored the secret: back to API credentials</a></p>`,
  };
}

export function revokeConfirmView(context: PanelContext, credential: OwnedCredential): PanelView {
  return {
    nav: 'credentials',
    title: `Revoke ${credential.name}`,
    body: html`<p class="breadcrumb"><a href="${panelPath('credentials')}">API credentials</a></p>
<h1>Revoke “${credential.name}”?</h1>
<div class="card"><dl class="summary">
<dt>Client ID</dt><dd><code>${credential.client_id}</code></dd>
<dt>Last used</dt><dd>${timeHtml(credential.last_used_at)}</dd>
</dl></div>
<p id="revoke-effect">The integration using this credential loses access on its next API call, and no new access token can be obtained with it. This cannot be undone.</p>
<div class="actions">${postButton(context, panelPath('credentials', credential.id, 'revoke'), 'Revoke credential', { className: 'danger', describedBy: 'revoke-effect', reason: reasonField() })}<a href="${panelPath('credentials')}">Cancel</a></div>`,
  };
}
