import { API, startApi, type TestApi } from '../support/api';
import { createTenant } from '../support/fixtures';

describe('rate limits', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ RATE_LIMIT_PER_MINUTE: '3', TOKEN_RATE_LIMIT_PER_MINUTE: '4' });
  });
  afterAll(() => api.close());

  it('limits each credential separately, with RateLimit headers and a 429 carrying Retry-After', async () => {
    const first = await createTenant(api.app, ['accounts:read'], 'Limited A'); // 1 token call
    const second = await createTenant(api.app, ['accounts:read'], 'Limited B'); // 2 token calls
    for (let remaining = 2; remaining >= 0; remaining -= 1) {
      const ok = await api.http.get(`${API}/accounts/`).set(first.auth).expect(200);
      expect(ok.headers['ratelimit-policy']).toBe('"per-credential";q=3;w=60');
      expect(ok.headers.ratelimit).toMatch(new RegExp(`^"per-credential";r=${remaining};t=\\d+$`));
    }
    const limited = await api.http.get(`${API}/accounts/`).set(first.auth).expect(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    await api.http.get(`${API}/accounts/`).set(second.auth).expect(200);
  });

  it('limits the token endpoint per client address', async () => {
    // two exchanges were made by the previous test from this address; the limit is 4
    const form = { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'x' };
    await api.http.post(`${API}/oauth/token/`).type('form').send(form).expect(401);
    await api.http.post(`${API}/oauth/token/`).type('form').send(form).expect(401);
    const limited = await api.http.post(`${API}/oauth/token/`).type('form').send(form).expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.headers['ratelimit-policy']).toBe('"token-per-ip";q=4;w=60');
  });
});
