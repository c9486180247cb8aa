import { ROLES } from '@app/domain';
import { html } from '../../pages/html';
import { panelPath } from '../panel-paths';
import { mayManageCredentials, mayManageWebhooks } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import type { PanelView } from './layout';

export function homeView(context: PanelContext): PanelView {
  const role = ROLES.find((r) => r.role === context.user.role)?.display_name ?? context.user.role;
  const sections = [
    ...(mayManageCredentials(context.user.role)
      ? [html`<li class="card"><h2><a href="${panelPath('credentials')}">API credentials</a></h2><p>Client credentials for your company's backend integrations: create them with the scopes they need, see when they were last used, revoke them.</p></li>`]
      : []),
    mayManageWebhooks(context.user.role)
      ? html`<li class="card"><h2><a href="${panelPath('webhooks')}">Settings · Webhooks</a></h2><p>HTTPS endpoints that receive your company's events (alarms, shipments), their signing secrets and their delivery attempts.</p></li>`
      : html`<li class="card"><h2><a href="${panelPath('webhooks')}">Settings · Webhooks</a></h2><p>HTTPS endpoints that receive your company's events (alarms, shipments), their delivery health and attempts. You can view them; company administrators and managers manage them.</p></li>`,
  ];
  return {
    nav: 'home',
    title: 'Overview',
    body: html`<h1>Overview</h1>
<div class="card"><dl class="summary">
<dt>Signed in as</dt><dd>${context.user.fullName} (${context.user.email})</dd>
<dt>Company</dt><dd>${context.account.name}</dd>
<dt>Role</dt><dd>${role}</dd>
</dl></div>
<ul class="plain-list">${sections}</ul>
<ul class="plain-list"><li class="card"><h2><a href="${panelPath('webhook-events')}">Webhook event log</a></h2><p>Your company's events sent to its webhook endpoints: what was delivered, what is failing, each payload and attempt.</p></li></ul>`,
  };
}
