import { startApi, type TestApi } from '../support/api';
import { SPEC_ENDPOINTS, SPEC_SCOPES } from '../support/spec-endpoints';

describe('the OpenAPI document covers the whole specification', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const operation = (endpoint: string) => {
    const [method, path] = endpoint.split(' ');
    const doc = api.document as { paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>> };
    return doc.paths[`/api/public/v1${path}`]?.[method.toLowerCase()];
  };

  it('documents every operation of spec §4', () => {
    const missing = SPEC_ENDPOINTS.filter((endpoint) => !operation(endpoint));
    expect(missing).toEqual([]);
  });

  it('requires exactly the scopes the specification lists', () => {
    for (const [endpoint, scopes] of Object.entries(SPEC_SCOPES)) {
      expect({ endpoint, scopes: operation(endpoint)?.security?.[0]?.oauth2?.join(' + ') }).toEqual({ endpoint, scopes });
    }
  });
});
