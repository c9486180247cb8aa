import type { HealthTotals, WebhookEndpointView } from '@app/webhooks';
import { html, type Html } from '../../common/html';
import { panelPath } from '../panel-paths';
import { mayManageCredentials, mayManageWebhooks } from '../panel-roles';
import type { PanelContext } from '../session/panel-context';
import type { PanelView } from '../ui/layout';
import { successRateHtml } from '../webhooks/webhook-health.views';
import { ROLES } from '@app/vocabulary';

/** Each endpoint's success rate of the last 24 hours (as on Settings · Webhooks), so a failing one shows where sign-in lands. */
function webhookRates(endpoints: WebhookEndpointView[], successRates: Map<string, HealthTotals>): Html {
  if (endpoints.length === 0) return html`<p class="empty">No webhook endpoints yet.</p>`;
  return html`<h3 id="webhook-rates-heading">Attempts that succeeded, last 24 hours</h3>
<ul class="plain-list" id="webhook-rates" aria-labelledby="webhook-rates-heading">${endpoints.map(
    (e) => html`<li data-endpoint="${e.id}"><a href="${panelPath('webhooks', e.id)}"><code>${e.url}</code></a>${e.status === 'enabled' ? html`` : html` <span class="status bad">Disabled</span>`}: ${successRateHtml(successRates.get(e.id))}</li>`,
  )}</ul>`;
}

export function homeView(context: PanelContext, endpoints: WebhookEndpointView[] = [], successRates = new Map<string, HealthTotals>()): PanelView {
  const rates = webhookRates(endpoints, successRates);
  const role = ROLES.find((r) => r.role === context.user.role)?.display_name ?? context.user.role;
  const sections = [
    ...(mayManageCredentials(context.user.role)
      ? [html`<li class="card"><h2><a href="${panelPath('credentials')}">API credentials</a></h2><p>Client credentials for your company's backend integrations: create them with the scopes they need, see when they were last used, revoke them.</p></li>`]
      : []),
    mayManageWebhooks(context.user.role)
      ? html`<li class="card"><h2><a href="${panelPath('webhooks')}">Settings · Webhooks</a></h2><p>HTTPS endpoints that receive your company's events (alarms, shipments), their signing secrets and their delivery attempts.</p>${rates}</li>`
      : html`<li class="card"><h2><a href="${panelPath('webhooks')}">Settings · Webhooks</a></h2><p>HTTPS endpoints that receive your company's events (alarms, shipments), their delivery health and attempts. You can view them; company administrators and managers manage them.</p>${rates}</li>`,
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
