import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { startApi, type TestApi } from '../support/api';
import { listRoutes, type RouteAccess } from '../support/routes';

/**
 * The committed table test/route-scopes.json is the permission surface of the API and the web
 * panel: for every route, its access (the scopes it requires, `public`, `panel-session` or
 * `panel-public`), its tenant mode (`tenant-bound`, `tenant-free`, `public`, `panel-session`) and,
 * behind the panel session, the panel roles allowed (`any`: every signed-in person). A change to it
 * is reviewed as a permission change. Regenerate with UPDATE_ROUTE_TABLE=1 after review:
 *   UPDATE_ROUTE_TABLE=1 node --experimental-vm-modules node_modules/jest/bin/jest.js --runInBand test/e2e/routes.e2e-spec.ts
 */
const TABLE = join(process.cwd(), 'test', 'route-scopes.json');

describe('route permission table', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('declares access on every route and matches the reviewed table (access, tenant mode, panel roles)', () => {
    const actual: Record<string, RouteAccess> = Object.fromEntries(listRoutes(api.app).map(({ route, ...access }) => [route, access]));
    if (process.env.UPDATE_ROUTE_TABLE) writeFileSync(TABLE, `${JSON.stringify(actual, null, 2)}\n`);
    expect(Object.entries(actual).filter(([, { access }]) => access === 'UNDECLARED' || access === 'CONFLICTING')).toEqual([]);
    const reviewed = JSON.parse(readFileSync(TABLE, 'utf8')) as Record<string, RouteAccess>;
    const differences = [...new Set([...Object.keys(actual), ...Object.keys(reviewed)])]
      .filter((route) => !isDeepStrictEqual(actual[route], reviewed[route]))
      .map((route) => ({ route, declared: actual[route] ?? 'no such route', reviewed: reviewed[route] ?? 'not in the table' }));
    expect(differences).toEqual([]);
    expect(actual).toEqual(reviewed);
  });

  it('declares panel access exactly on the web panel routes, and never @Public() there', () => {
    for (const { route, access, tenant, roles } of listRoutes(api.app)) {
      const isPanelPath = route.split(' ')[1].startsWith('/panel/');
      const kind = access === 'panel-session' || access === 'panel-public' ? access : 'api';
      expect({ route, panel: kind !== 'api' }).toEqual({ route, panel: isPanelPath });
      if (kind === 'panel-session') expect({ route, tenant, hasRoles: roles !== undefined }).toEqual({ route, tenant: 'panel-session', hasRoles: true });
      else expect({ route, roles }).toEqual({ route, roles: undefined });
    }
  });

  it('documents every non-public API route in the OpenAPI description with its scopes', () => {
    const doc = api.document as { paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>> };
    for (const { route, access } of listRoutes(api.app)) {
      const [method, path] = route.split(' ');
      if (!path.startsWith('/api/public/v1/') || access === 'public') continue;
      const template = path.replace(/:([a-z_]+)/g, '{$1}');
      const operation = doc.paths[template]?.[method.toLowerCase()];
      expect({ route, documented: Boolean(operation) }).toEqual({ route, documented: true });
      expect({ route, scopes: operation?.security?.[0]?.oauth2?.join(' + ') }).toEqual({ route, scopes: access });
    }
  });
});
