import type { Response } from 'express';
import { html, Html } from '../../common/html';
import { panelPath } from '../panel-paths';
import { mayManageCredentials, mayManageWebhooks, mayReadAuditLog } from '../panel-roles';
import { CSRF_FIELD } from '../session/csrf';
import type { PanelContext } from '../session/panel-context';
import { COPY_SCRIPT, COPY_SCRIPT_HASH } from './copy-script';
import { NOTICES, type NoticeCode } from './notices';

export type NavItem = 'home' | 'credentials' | 'webhooks' | 'events' | 'audit';

export interface PanelView {
  title: string;
  body: Html;
  status?: number;
  /** Highlighted in the navigation. */
  nav?: NavItem;
  /** The page shows a one-time secret: adds the copy script. */
  secret?: boolean;
}

export const STYLESHEET_PATH = `${panelPath('assets')}panel.css`;

const BASE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The hidden CSRF field of a session's forms. */
export const csrfField = (context: PanelContext): Html => html`<input type="hidden" name="${CSRF_FIELD}" value="${context.csrfToken}">`;

/** A button that POSTs (with the CSRF token) to `action`; extra hidden fields and a reason field optional. */
export function postButton(
  context: PanelContext,
  action: string,
  label: string,
  options: { className?: string; fields?: Record<string, string>; describedBy?: string; reason?: Html } = {},
): Html {
  const fields = Object.entries(options.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  // With a reason field (form-parts.ts reasonField) the form is a block, not an inline button.
  return html`<form method="post" action="${action}" class="${options.reason ? 'with-reason' : 'inline'}">${csrfField(context)}${fields}${options.reason ?? html``}<button type="submit"${options.className ? html` class="${options.className}"` : html``}${options.describedBy ? html` aria-describedby="${options.describedBy}"` : html``}>${label}</button></form>`;
}

function navigation(context: PanelContext, current: NavItem | undefined): Html {
  const items: Array<[NavItem, string, string]> = [['home', 'Overview', panelPath()]];
  if (mayManageCredentials(context.user.role)) items.push(['credentials', 'API credentials', panelPath('credentials')]);
  // Every role reads Settings · Webhooks; administrators and managers manage it.
  items.push(['webhooks', 'Settings · Webhooks', panelPath('webhooks')]);
  items.push(['events', 'Webhook event log', panelPath('webhook-events')]);
  if (mayReadAuditLog(context.user.role)) items.push(['audit', 'Audit log', panelPath('audit-log')]);
  return html`<nav class="site-nav" aria-label="Main"><ul>${items.map(
    ([key, label, href]) => html`<li><a href="${href}"${key === current ? html` aria-current="page"` : html``}>${label}</a></li>`,
  )}</ul></nav>`;
}

function header(context: PanelContext | null, current: NavItem | undefined): Html {
  const brand = html`<p class="brand"><a href="${panelPath()}">Cold Chain Telemetry</a></p>`;
  if (!context) return html`<header class="site-header">${brand}</header>`;
  return html`<header class="site-header">${brand}${navigation(context, current)}
<div class="who"><span>${context.user.fullName} · ${context.account.name}</span>${postButton(context, panelPath('sign-out'), 'Sign out', { className: 'link' })}</div>
</header>`;
}

/** Shown on every page while an endpoint of the company is disabled (spec §6.5). */
function disabledBanner(context: PanelContext | null): Html {
  if (!context || context.disabledEndpoints === 0) return html``;
  const count = context.disabledEndpoints === 1 ? 'One webhook endpoint is' : `${context.disabledEndpoints} webhook endpoints are`;
  const action = mayManageWebhooks(context.user.role)
    ? html` <a href="${panelPath('webhooks')}">Review and re-enable it in Settings · Webhooks</a>.`
    : html` <a href="${panelPath('webhooks')}">See it in Settings · Webhooks</a>; a company administrator or manager can turn it back on.`;
  return html`<div class="banner" role="region" aria-label="Warning"><p><strong>Warning:</strong> ${count} disabled and receiving no events.${action}</p></div>`;
}

function noticeBlock(code: NoticeCode | null): Html {
  if (!code) return html``;
  const notice = NOTICES[code];
  return html`<p class="notice${notice.error ? ' error' : ''}">${notice.text}</p>`;
}

/**
 * Sends a complete panel page with strict headers: no inline script except the hashed copy
 * script, no framing, no referrer, never cached (pages hold company data and one-time secrets).
 */
export function sendPanelPage(response: Response, context: PanelContext | null, view: PanelView, notice: NoticeCode | null = null, secureTransport = false): void {
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${view.title} · Cold Chain Telemetry panel</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
${header(context, view.nav)}
${disabledBanner(context)}
<main id="main" tabindex="-1">
<div class="flash" role="status" aria-live="polite">${noticeBlock(notice)}</div>
${view.body}
</main>
<footer><p>Cold Chain Telemetry · company panel</p></footer>
${view.secret ? html`<script>${new Html(COPY_SCRIPT)}</script>` : html``}
</body>
</html>
`;
  response.status(view.status ?? 200).set({ 'Content-Type': 'text/html; charset=utf-8', ...securityHeaders(view.secret === true, secureTransport) });
  response.send(page.value);
}

export function securityHeaders(withScript: boolean, secureTransport: boolean): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'Content-Security-Policy': withScript ? `${BASE_CSP}; script-src ${COPY_SCRIPT_HASH}` : BASE_CSP,
    ...(secureTransport ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  };
}

/** 303 (post/redirect/get): the browser follows with a GET. */
export function redirectTo(response: Response, location: string): void {
  response.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  response.redirect(303, location);
}

export const withNotice = (path: string, notice: NoticeCode): string => `${path}?notice=${notice}`;

/** `<time>` in UTC, readable and machine-readable. */
export function timeHtml(iso: string | null, empty = 'never'): Html {
  if (!iso) return html`<span class="empty">${empty}</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}
