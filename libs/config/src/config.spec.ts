import { ConfigError, EMBEDDED_DATABASE_URL, loadConfig } from './config';

describe('loadConfig', () => {
  it('runs on development defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, databaseUrl: EMBEDDED_DATABASE_URL, telemetryMaxRangeDays: 31, publicBaseUrl: 'http://localhost:3000' });
    expect(config.webhookRetryScheduleSeconds).toHaveLength(6);
    expect(config.tokenLifetimeSeconds).toBeLessThanOrEqual(3600);
  });

  it('reads the webhook isolation and retention settings', () => {
    expect(loadConfig({})).toMatchObject({
      webhookConcurrency: 64,
      webhookConcurrencyPerAccount: 16,
      webhookDnsServers: undefined,
      webhookDnsTimeoutMs: 3000,
      webhookMaxEndpointsPerAccount: 20,
      webhookRetentionDays: 30,
    });
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '10' }).webhookConcurrencyPerAccount).toBe(3);
    expect(loadConfig({ WEBHOOK_CONCURRENCY_PER_ACCOUNT: '40' }).webhookConcurrencyPerAccount).toBe(40);
    expect(loadConfig({ WEBHOOK_DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353,2001:db8::53,[2001:db8::53]:5353' }).webhookDnsServers).toEqual([
      '1.1.1.1',
      '127.0.0.1:5353',
      '2001:db8::53',
      '[2001:db8::53]:5353',
    ]);
    for (const bad of ['dns.example', '1.1.1.1:99999', '1.1.1.1,', '[1.1.1.1]']) {
      expect(() => loadConfig({ WEBHOOK_DNS_SERVERS: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT: '0' })).toThrow(/WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT/);
    expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: 'forever' })).toThrow(/WEBHOOK_RETENTION_DAYS/);
  });

  it('switches the ingest consumers and the outbox relay off with the same words', () => {
    expect(loadConfig({})).toMatchObject({ ingestConsumer: true, outboxRelayEnabled: true });
    for (const off of ['off', 'false', '0', 'no', 'OFF', ' No ']) {
      expect(loadConfig({ INGEST_CONSUMER: off, OUTBOX_RELAY: off })).toMatchObject({ ingestConsumer: false, outboxRelayEnabled: false });
    }
    expect(loadConfig({ INGEST_CONSUMER: 'on', OUTBOX_RELAY: 'true' })).toMatchObject({ ingestConsumer: true, outboxRelayEnabled: true });
  });

  it('reads TRUST_PROXY as Express does, and refuses what Express would misread', () => {
    expect(loadConfig({}).trustProxy).toBe('loopback');
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8' }).trustProxy).toBe('loopback, 10.0.0.0/8, fd00::/8');
    for (const bad of ['everyone', '10.0.0.0/33', '10.0.0.1/8/2', 'loopback,,']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError);
    }
  });

  it('refuses to start in production without real secrets, naming them', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL, JWT_SIGNING_KEYS, SECRETS_KEY, PUBLIC_BASE_URL/);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ TOKEN_LIFETIME_SECONDS: '7200' }, /TOKEN_LIFETIME_SECONDS/],
    [{ JWT_SIGNING_KEYS: 'k1:short' }, /at least 32/],
    [{ WEBHOOK_RETRY_SCHEDULE: '1,2,3' }, /six/],
    [{ SECRETS_KEY: 'short' }, /SECRETS_KEY/],
  ])('refuses %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('parses several signing keys: the first signs, all verify', () => {
    const config = loadConfig({ JWT_SIGNING_KEYS: `new:${'a'.repeat(32)},old:${'b'.repeat(32)}`, PUBLIC_BASE_URL: 'https://api.example.com/' });
    expect(config.jwtSigningKeys.map((k) => k.kid)).toEqual(['new', 'old']);
    expect(config.publicBaseUrl).toBe('https://api.example.com');
  });
});
