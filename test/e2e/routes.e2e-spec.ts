import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApi, type TestApi } from '../support/api';
import { listRoutes } from '../support/routes';

/**
 * The committed table test/route-scopes.json is the permission surface of the API: a change to
 * it is reviewed as a permission change. Regenerate with UPDATE_ROUTE_TABLE=1 after review.
 */
const TABLE = join(process.cwd(), 'test', 'route-scopes.json');

describe('route permission table', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  it('declares access on every route and matches the reviewed table', () => {
    const actual = Object.fromEntries(listRoutes(api.app).map((r) => [r.route, r.access]));
    if (process.env.UPDATE_ROUTE_TABLE) writeFileSync(TABLE, `${JSON.stringify(actual, null, 2)}\n`);
    expect(Object.entries(actual).filter(([, access]) => access === 'UNDECLARED')).toEqual([]);
    expect(actual).toEqual(JSON.parse(readFileSync(TABLE, 'utf8')));
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
