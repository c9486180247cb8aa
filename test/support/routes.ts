import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { PUBLIC_ROUTE, REQUIRED_SCOPES } from '../../apps/api/src/auth/auth.decorators';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'ALL', 'OPTIONS', 'HEAD', 'SEARCH'];

export interface RouteDeclaration {
  route: string;
  /** 'public', the required scopes, or 'UNDECLARED'. */
  access: string;
}

const join = (...parts: string[]): string =>
  `/${parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}/`;

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
        const isPublic = Reflect.getMetadata(PUBLIC_ROUTE, handler) ?? Reflect.getMetadata(PUBLIC_ROUTE, controller);
        const scopes = (Reflect.getMetadata(REQUIRED_SCOPES, handler) ?? Reflect.getMetadata(REQUIRED_SCOPES, controller)) as string[] | undefined;
        const access = isPublic ? 'public' : scopes?.length ? scopes.join(' + ') : 'UNDECLARED';
        for (const b of [base].flat()) {
          for (const p of [path].flat()) routes.push({ route: `${METHODS[method]} ${join(b, p)}`, access });
        }
      }
    }
  }
  return routes.sort((a, b) => a.route.localeCompare(b.route));
}
