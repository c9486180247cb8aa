import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { PANEL_ROUTE, type PanelAccess, PUBLIC_ROUTE, REQUIRED_SCOPES, TENANT_FREE } from '../../apps/api/src/auth/auth.decorators';
import { PANEL_ROLES } from '../../apps/api/src/panel/session/panel-session.guard';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'ALL', 'OPTIONS', 'HEAD', 'SEARCH'];

/**
 * Where a route's tenant comes from: the account the tenant guard selects (`tenant-bound`), none
 * because the route works across the credential's allow-list (`tenant-free`, `@TenantFree()`), none
 * at all (`public`: `@Public()` and `@PanelPublic()`), or the company of the signed-in person
 * (`panel-session`).
 */
export type TenantMode = 'tenant-bound' | 'tenant-free' | 'public' | 'panel-session' | 'UNDECLARED';

export interface RouteAccess {
  /**
   * 'public', the required scopes ('a:read + b:write'), 'panel-session', 'panel-public',
   * 'UNDECLARED' (no declaration: refused by the API guards), or 'CONFLICTING' (a panel
   * declaration together with @Public() or @Scopes(): the guards would not enforce the scopes).
   */
  access: string;
  tenant: TenantMode;
  /** Panel session routes only: the roles allowed, or 'any' (every signed-in person). */
  roles?: string[] | 'any';
}

export interface RouteDeclaration extends RouteAccess {
  route: string;
}

const join = (...parts: string[]): string =>
  `/${parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}/`;

/** The declaration nearest the route, as Reflector.getAllAndOverride reads it (the method's, else the controller's). */
const nearest = <T>(key: string, handler: object, controller: object): T | undefined =>
  (Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller)) as T | undefined;

/** The access a route declares, read the way the global guards and the panel session guard read it. */
function accessOf(handler: object, controller: object): RouteAccess {
  const isPublic = Boolean(nearest<boolean>(PUBLIC_ROUTE, handler, controller));
  const scopes = nearest<string[]>(REQUIRED_SCOPES, handler, controller);
  const panel = nearest<PanelAccess>(PANEL_ROUTE, handler, controller);
  if (panel !== undefined) {
    if (isPublic || scopes?.length) return { access: 'CONFLICTING', tenant: 'UNDECLARED' };
    if (panel === 'public') return { access: 'panel-public', tenant: 'public' };
    const roles = nearest<string[]>(PANEL_ROLES, handler, controller);
    return { access: 'panel-session', tenant: 'panel-session', roles: roles?.length ? roles : 'any' };
  }
  if (isPublic) return { access: 'public', tenant: 'public' };
  if (!scopes?.length) return { access: 'UNDECLARED', tenant: 'UNDECLARED' };
  return { access: scopes.join(' + '), tenant: nearest<boolean>(TENANT_FREE, handler, controller) ? 'tenant-free' : 'tenant-bound' };
}

/** Every HTTP route of the app with the access it declares, read from Nest's own metadata. */
export function listRoutes(app: INestApplication): RouteDeclaration[] {
  const routes: RouteDeclaration[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: unknown[]) => unknown) | null;
      if (!controller) continue;
      const base = (Reflect.getMetadata('path', controller) as string | string[] | undefined) ?? '';
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata('method', handler) as number | undefined;
        if (method === undefined) continue;
        const path = Reflect.getMetadata('path', handler) as string | string[];
        const access = accessOf(handler, controller);
        for (const b of [base].flat()) {
          for (const p of [path].flat()) routes.push({ route: `${METHODS[method]} ${join(b, p)}`, ...access });
        }
      }
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}
