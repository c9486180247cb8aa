import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API, startApi, type TestApi } from '../support/api';

/**
 * The client libraries are generated from `clients/openapi.json`, the document the api serves at
 * /schema/. This test fails when the served document and the committed snapshot differ
 * (`npm run clients:generate` refreshes the snapshot and every generated client).
 */
export const SNAPSHOT = join(process.cwd(), 'clients', 'openapi.json');
export const SNAPSHOT_BASE_URL = 'https://coldchain.example.com';

describe('client libraries: the OpenAPI snapshot', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi({ PUBLIC_BASE_URL: SNAPSHOT_BASE_URL });
  });

  afterAll(async () => {
    await api.close();
  });

  it('matches the document the api serves', async () => {
    const served = `${JSON.stringify((await api.raw.get(`${API}/schema/`).expect(200)).body, null, 2)}\n`;
    if (process.env.WRITE_CLIENTS === '1') writeFileSync(SNAPSHOT, served);
    expect(readFileSync(SNAPSHOT, 'utf8')).toBe(served);
  });
});
