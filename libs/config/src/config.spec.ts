import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConfigError, EMBEDDED_DATABASE_URL, loadConfig, redactUrl } from './config';

describe('loadConfig', () => {
  it('runs on development defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, databaseUrl: EMBEDDED_DATABASE_URL, telemetryMaxRangeDays: 31, publicBaseUrl: 'http://localhost:3000' });
    expect(config.webhookRetryScheduleSeconds).toHaveLength(6);
    expect(config.tokenLifetimeSeconds).toBeLessThanOrEqual(3600);
  });

  it('keeps telemetry and the audit trail for ever by default, and never the trail shorter than telemetry', () => {
    expect(loadConfig({})).toMatchObject({ telemetryRetentionDays: null, auditRetentionDays: null });
    expect(loadConfig({ TELEMETRY_RETENTION_DAYS: '365', AUDIT_RETENTION_DAYS: '365' })).toMatchObject({ telemetryRetentionDays: 365, auditRetentionDays: 365 });
    expect(loadConfig({ TELEMETRY_RETENTION_DAYS: '365', AUDIT_RETENTION_DAYS: '3650' }).auditRetentionDays).toBe(3650);
    expect(loadConfig({ TELEMETRY_RETENTION_DAYS: '90' })).toMatchObject({ telemetryRetentionDays: 90, auditRetentionDays: null });
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(env);
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems({ TELEMETRY_RETENTION_DAYS: '730', AUDIT_RETENTION_DAYS: '365' })).toEqual([
      'AUDIT_RETENTION_DAYS (365) must be at least TELEMETRY_RETENTION_DAYS (730): the audit trail is kept as long as the telemetry it relates to',
    ]);
    expect(problems({ AUDIT_RETENTION_DAYS: '3650' })).toEqual([expect.stringContaining('TELEMETRY_RETENTION_DAYS is not set') as unknown]);
    expect(problems({ TELEMETRY_RETENTION_DAYS: '1', AUDIT_RETENTION_DAYS: '30' })).toEqual(['AUDIT_RETENTION_DAYS must be an integer between 31 and 36500 (got "30")']);
    expect(problems({ TELEMETRY_RETENTION_DAYS: 'forever', AUDIT_RETENTION_DAYS: '400' })).toEqual(['TELEMETRY_RETENTION_DAYS must be an integer between 1 and 36500 (got "forever")']);
  });

  it('reads the webhook isolation and retention settings', () => {
    expect(loadConfig({})).toMatchObject({
      webhookConcurrency: 64,
      webhookConcurrencyPerAccount: 16,
      webhookDnsServers: undefined,
      webhookDnsTimeoutMs: 3000,
      webhookMaxEndpointsPerAccount: 20,
      webhookRetentionDays: 30,
      webhookRecoveryMaxEvents: 10_000,
      webhookMaxIdleSockets: 192,
    });
    expect(loadConfig({ WEBHOOK_MAX_IDLE_SOCKETS: '0' }).webhookMaxIdleSockets).toBe(0);
    // By default three idle sockets per attempt slot (192 at the default concurrency of 64, above).
    expect(loadConfig({ WEBHOOK_CONCURRENCY: '10' }).webhookMaxIdleSockets).toBe(30);
    expect(() => loadConfig({ WEBHOOK_MAX_IDLE_SOCKETS: '-1' })).toThrow(/WEBHOOK_MAX_IDLE_SOCKETS/);
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

  it('reads the queue type, classic by default, and the quorum delivery limits', () => {
    expect(loadConfig({}).amqpQueues).toEqual({ type: 'classic', eventsDeliveryLimit: 20, ingestDeliveryLimit: 1000 });
    expect(loadConfig({ AMQP_QUEUE_TYPE: ' Quorum ', AMQP_DELIVERY_LIMIT: '5', AMQP_INGEST_DELIVERY_LIMIT: '50' }).amqpQueues).toEqual({ type: 'quorum', eventsDeliveryLimit: 5, ingestDeliveryLimit: 50 });
    expect(() => loadConfig({ AMQP_QUEUE_TYPE: 'stream' })).toThrow(/AMQP_QUEUE_TYPE must be classic or quorum/);
    expect(() => loadConfig({ AMQP_DELIVERY_LIMIT: '0' })).toThrow(ConfigError);
  });

  it('reads AMQP_URL as one URL or a comma-separated list of cluster nodes, checking every entry', () => {
    expect(loadConfig({})).toMatchObject({ amqpUrls: ['amqp://guest:guest@127.0.0.1:5672'], amqpUrl: 'amqp://guest:guest@127.0.0.1:5672' });
    expect(loadConfig({ AMQP_URL: 'amqp://u:p@rabbit1:5672' }).amqpUrls).toEqual(['amqp://u:p@rabbit1:5672']);
    const list = loadConfig({ AMQP_URL: ' amqp://u:p@rabbit1:5672/v , amqps://u:p@rabbit2:5671/v,amqp://u:p@rabbit3/v ' });
    expect(list.amqpUrls).toEqual(['amqp://u:p@rabbit1:5672/v', 'amqps://u:p@rabbit2:5671/v', 'amqp://u:p@rabbit3/v']);
    expect(list.amqpUrl).toBe('amqp://u:p@rabbit1:5672/v');
    expect(() => loadConfig({ AMQP_URL: 'amqp://u:s3cret@rabbit1,http://u:s3cret@rabbit2' })).toThrow(/AMQP_URL must be a URL of scheme amqp or amqps with a host \(entry 2 of the list\)/);
    expect(() => loadConfig({ AMQP_URL: 'amqp://u:s3cret@rabbit1,,amqp://u:s3cret@rabbit3' })).toThrow(/AMQP_URL has an empty entry \(entry 2 of the list\)/);
    expect(() => loadConfig({ AMQP_URL: 'amqp://u:s3cret@rabbit1,rabbit2' })).not.toThrow(/s3cret/);
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

  it('reads the abuse limits, each a positive integer', () => {
    expect(loadConfig({})).toMatchObject({
      panelSignInAttemptsPerIp: 30,
      panelSignInFailuresPerEmail: 100,
      panelSignInFailuresPerNetwork: 5,
      panelSignInMaxDelaySeconds: 900,
      panelPostsPerMinute: 60,
      webhookTestEventsPerHour: 30,
      webhookEndpointCreatesPerHour: 20,
      invitationAcceptsPerMinute: 10,
      userInvitationsPerHour: 20,
    });
    expect(loadConfig({ WEBHOOK_TEST_EVENTS_PER_HOUR: '5', PANEL_POSTS_PER_MINUTE: '7' })).toMatchObject({ webhookTestEventsPerHour: 5, panelPostsPerMinute: 7 });
    for (const name of ['PANEL_SIGN_IN_ATTEMPTS_PER_IP', 'PANEL_SIGN_IN_FAILURES_PER_EMAIL', 'PANEL_SIGN_IN_FAILURES_PER_NETWORK', 'PANEL_SIGN_IN_MAX_DELAY_SECONDS', 'PANEL_POSTS_PER_MINUTE', 'WEBHOOK_TEST_EVENTS_PER_HOUR', 'WEBHOOK_ENDPOINT_CREATES_PER_HOUR', 'INVITATION_ACCEPTS_PER_MINUTE', 'USER_INVITATIONS_PER_HOUR']) {
      for (const bad of ['0', '-1', '1.5', 'many']) expect(() => loadConfig({ [name]: bad })).toThrow(new RegExp(name));
    }
  });

  it('bounds each SMTP stage and the whole exchange of one e-mail, below the outbox lease', () => {
    expect(loadConfig({})).toMatchObject({ smtpTimeoutMs: 10_000, smtpSendTimeoutMs: 30_000 });
    expect(loadConfig({ SMTP_SEND_TIMEOUT_MS: '1500' }).smtpSendTimeoutMs).toBe(1500);
    for (const bad of ['0', '99', '240001', 'soon']) expect(() => loadConfig({ SMTP_SEND_TIMEOUT_MS: bad })).toThrow(/SMTP_SEND_TIMEOUT_MS/);
  });

  it('counts the API limits in memory without REDIS_URL, in Redis with one (validated, with a bounded timeout)', () => {
    expect(loadConfig({})).toMatchObject({ redisUrl: undefined, redisKeyPrefix: 'coldchain', redisTimeoutMs: 500 });
    expect(loadConfig({ REDIS_URL: ' ' }).redisUrl).toBeUndefined();
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: 'run-1', REDIS_TIMEOUT_MS: '250' })).toMatchObject({
      redisUrl: 'redis://127.0.0.1:6379',
      redisKeyPrefix: 'run-1',
      redisTimeoutMs: 250,
    });
    expect(loadConfig({ REDIS_URL: 'rediss://:secret@redis.internal:6380/2' }).redisUrl).toBe('rediss://:secret@redis.internal:6380/2');
    for (const bad of ['127.0.0.1:6379', 'http://redis:6379', 'redis://', 'redis://redis:6379/x', 'not a url']) {
      expect(() => loadConfig({ REDIS_URL: bad })).toThrow(/REDIS_URL/);
    }
    for (const bad of ['0', '5', '10001', 'soon']) expect(() => loadConfig({ REDIS_TIMEOUT_MS: bad })).toThrow(/REDIS_TIMEOUT_MS/);
    for (const bad of ['has space', 'a/b', 'x'.repeat(65)]) expect(() => loadConfig({ REDIS_KEY_PREFIX: bad })).toThrow(/REDIS_KEY_PREFIX/);
  });

  it('puts the operations port on loopback by default, apart from the public port', () => {
    expect(loadConfig({})).toMatchObject({ opsPort: 9464, opsHost: '127.0.0.1' });
    expect(loadConfig({ OPS_HOST: '::', OPS_PORT: '9100' })).toMatchObject({ opsPort: 9100, opsHost: '::' });
    expect(loadConfig({ OPS_PORT: '0', PORT: '0' }).opsPort).toBe(0);
    expect(() => loadConfig({ OPS_HOST: 'localhost' })).toThrow(/OPS_HOST/);
    expect(() => loadConfig({ OPS_PORT: '3000' })).toThrow(/OPS_PORT must differ from PORT/);
  });

  it('refuses to start in production without real secrets, naming them', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL, JWT_SIGNING_KEYS, SECRETS_KEY, PUBLIC_BASE_URL/);
  });

  it('lists a missing setting and a placeholder secret together in production', () => {
    let problems: string[] = [];
    try {
      loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgresql://db/x', PUBLIC_BASE_URL: 'https://api.example.com', SECRETS_KEY: 'change-me-change-me-change-me-change-me' });
    } catch (error) {
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([expect.stringMatching(/requires these settings: JWT_SIGNING_KEYS$/), expect.stringMatching(/placeholder or development value of SECRETS_KEY/)]);
  });

  describe('production refuses known secrets', () => {
    const real = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgresql://db/x',
      PUBLIC_BASE_URL: 'https://api.example.net',
      JWT_SIGNING_KEYS: 'k1:Qm9v3xR7tLp2ZcWd8YhNa4FsKe6GjU1o',
      SECRETS_KEY: 'Vt5Rz8Lq2Xn7Bw4Ck9Jm3Hf6Dp1Gs0Ya',
    };
    const compose = parse(readFileSync(join(process.cwd(), 'docker/docker-compose.yml'), 'utf8'), { merge: true }) as {
      'x-app-env': Record<string, string>;
    };
    /** `${NAME:-default}` in the compose file: the value a trial start without an env file gets. */
    const composeDefault = (name: string): string => /:-([^}]*)\}/.exec(compose['x-app-env'][name])?.[1] ?? '';

    it('starts with random secrets', () => {
      expect(loadConfig(real).nodeEnv).toBe('production');
    });

    it.each([
      ['the compose placeholder SECRETS_KEY', { SECRETS_KEY: composeDefault('SECRETS_KEY') }, /SECRETS_KEY/],
      ['the compose placeholder JWT_SIGNING_KEYS', { JWT_SIGNING_KEYS: composeDefault('JWT_SIGNING_KEYS') }, /JWT_SIGNING_KEYS/],
      ['the development SECRETS_KEY', { SECRETS_KEY: 'dev-only-secrets-key-change-me-0123456789abcdef' }, /SECRETS_KEY/],
      ['the development signing key as a second key', { JWT_SIGNING_KEYS: `${real.JWT_SIGNING_KEYS},dev:dev-only-signing-key-change-me-0123456789abcdef` }, /JWT_SIGNING_KEYS/],
      ['a key without variety', { SECRETS_KEY: 'a'.repeat(48) }, /SECRETS_KEY/],
    ])('refuses %s with a clear message', (_name, override, message) => {
      expect(composeDefault('SECRETS_KEY')).not.toBe('');
      expect(() => loadConfig({ ...real, ...override })).toThrow(ConfigError);
      expect(() => loadConfig({ ...real, ...override })).toThrow(message);
      expect(() => loadConfig({ ...real, ...override })).toThrow(/random secret of at least 32 characters/);
    });

    it('keeps the development keys outside production', () => {
      expect(() => loadConfig({ SECRETS_KEY: composeDefault('SECRETS_KEY') })).not.toThrow();
    });
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

  it('lists every wrong setting, one sentence each, not only the first', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'abc', AMQP_URL: 'rabbit:5672', TOKEN_LIFETIME_SECONDS: '7200', DB_PREPARED_STATEMENTS: 'maybe' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      expect.stringMatching(/^AMQP_URL must be a URL of scheme amqp or amqps with a host/),
      expect.stringMatching(/^PORT must be an integer/),
      expect.stringMatching(/^DB_PREPARED_STATEMENTS must be true or false/),
      expect.stringMatching(/^TOKEN_LIFETIME_SECONDS must be an integer/),
    ]);
  });

  it.each([
    ['DATABASE_URL', 'db.internal:5432/coldchain', /DATABASE_URL must be a URL of scheme postgres or postgresql with a host/],
    ['DATABASE_URL', 'postgresql://user:s3cret@', /DATABASE_URL is not a URL/],
    ['DATABASE_DIRECT_URL', 'mysql://db/x', /DATABASE_DIRECT_URL must be a URL of scheme postgres or postgresql/],
    ['AMQP_URL', 'http://rabbitmq:5672', /AMQP_URL must be a URL of scheme amqp or amqps/],
    ['PUBLIC_BASE_URL', 'api.example.com', /PUBLIC_BASE_URL is not a URL/],
    ['SMTP_URL', 'mail.internal:25', /SMTP_URL must be a URL of scheme smtp|SMTP_URL is not a URL/],
  ])('refuses %s=%s without repeating the value', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
    expect(() => loadConfig({ [name]: value })).not.toThrow(/s3cret/);
  });

  it('reads the pooler settings: a direct URL for locks and LISTEN, prepared statements and session parameters switchable', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/x' })).toMatchObject({
      databaseUrl: 'postgresql://db/x',
      databaseDirectUrl: 'postgresql://db/x',
      databaseSession: { preparedStatements: true, sessionParameters: true },
      migrateOnStart: true,
      startupCheckTimeoutMs: 10_000,
    });
    expect(
      loadConfig({ DATABASE_URL: 'postgresql://pgbouncer:6432/x', DATABASE_DIRECT_URL: 'postgresql://db:5432/x', DB_PREPARED_STATEMENTS: 'false', DB_SESSION_PARAMETERS: 'off', MIGRATE_ON_START: 'no' }),
    ).toMatchObject({
      databaseUrl: 'postgresql://pgbouncer:6432/x',
      databaseDirectUrl: 'postgresql://db:5432/x',
      databaseSession: { preparedStatements: false, sessionParameters: false },
      migrateOnStart: false,
    });
  });

  it('shows URLs without their credentials', () => {
    expect(redactUrl('amqp://api:s3cret@rabbitmq:5672/vhost?heartbeat=10')).toBe('amqp://***@rabbitmq:5672/vhost');
    expect(redactUrl('postgresql://db:5432/x')).toBe('postgresql://db:5432/x');
    expect(redactUrl('not a url')).toBe('(unparsable URL)');
  });

  it('parses several signing keys: the first signs, all verify', () => {
    const config = loadConfig({ JWT_SIGNING_KEYS: `new:${'a'.repeat(32)},old:${'b'.repeat(32)}`, PUBLIC_BASE_URL: 'https://api.example.com/' });
    expect(config.jwtSigningKeys.map((k) => k.kid)).toEqual(['new', 'old']);
    expect(config.publicBaseUrl).toBe('https://api.example.com');
  });
});
