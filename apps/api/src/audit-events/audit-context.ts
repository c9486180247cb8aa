import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type AuditContext, runWithAuditContext } from '@app/database';
import type { AuthenticatedRequest } from '../auth/principal';
import type { PanelRequest } from '../panel/session/panel-context';
import { API_PREFIX } from '../common/public-api-controller';

/** The header a caller may give a reason for a change in (recorded with it, at most 500 characters). */
export const CHANGE_REASON_HEADER = 'x-change-reason';

type AuditedRequest = AuthenticatedRequest & PanelRequest & { id?: string };

/** `PATCH /devices/{device_id}/settings/` for the API, `POST /panel/webhooks/{endpoint_id}/enable/` for the panel. */
export function actionOf(req: Request): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  const template = typeof route === 'string' ? route.replace(/:([A-Za-z_]+)/g, '{$1}') : req.path;
  const path = template.endsWith('/') ? template : `${template}/`; // the routes' canonical form
  const prefix = `/${API_PREFIX}`;
  return `${req.method} ${path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path}`;
}

/** Who is behind this request, once the guards have said (undefined before, or on a public route). */
export function auditContextOf(req: AuditedRequest): AuditContext | undefined {
  const common = { clientAddress: req.ip, requestId: req.id, action: actionOf(req) };
  if (req.principal) {
    return { ...common, actorType: 'credential', actorId: req.principal.credentialId, reason: req.header(CHANGE_REASON_HEADER) };
  }
  if (req.panel) {
    const reason = (req.body as Record<string, unknown> | undefined)?.reason ?? req.header(CHANGE_REASON_HEADER);
    return { ...common, actorType: 'panel_user', actorId: req.panel.user.id, reason: typeof reason === 'string' ? reason : undefined };
  }
  return undefined;
}

/**
 * Gives the rest of the request the audit context the database pool sends with its statements
 * (AuditedPool). Registered after the body parsers: they finish on stream events, outside the
 * request's async context.
 */
export function auditContext(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => runWithAuditContext(() => auditContextOf(req as AuditedRequest), next);
}
