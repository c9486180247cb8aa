import { createHash } from 'node:crypto';
import { isIP } from 'node:net';

/** Development-only secrets: usable on a laptop, refused when NODE_ENV=production. */
const DEV_SIGNING_KEY = 'dev-only-signing-key-change-me-0123456789abcdef';
const DEV_SECRETS_KEY = 'dev-only-secrets-key-change-me-0123456789abcdef';

export const EMBEDDED_DATABASE_PORT = 54329;
export const EMBEDDED_DATABASE_URL = `postgresql://postgres:postgres@127.0.0.1:${EMBEDDED_DATABASE_PORT}/coldchain`;

export interface SigningKey {
  kid: string;
  secret: string;
}

export interface AppConfig {
  nodeEnv: string;
  port: number;
  dispatcherPort: number;
  /** The api's operations port: Prometheus /metrics and the detailed readiness report. */
  opsPort: number;
  /** Address the operations ports (the api's OPS_PORT, the dispatcher's DISPATCHER_PORT) listen on. */
  opsHost: string;
  databaseUrl: string;
  /**
   * A connection straight to PostgreSQL for what a transaction pooler (PgBouncer in transaction
   * mode) cannot carry: the migrations' session advisory lock and LISTEN (outbox relay, delivery
   * worker). DATABASE_DIRECT_URL; DATABASE_URL when unset.
   */
  databaseDirectUrl: string;
  /**
   * A PostgreSQL streaming replica (DATABASE_REPLICA_URL) for the reads that may lag: lists,
   * telemetry pages and buckets, tracking, report downloads, never more than maxLagMs behind
   * (DATABASE_REPLICA_MAX_LAG_MS, default 5000); undefined: every read on the primary.
   */
  databaseReplica: { url: string; maxLagMs: number } | undefined;
  /**
   * What the pooled connections (DATABASE_URL) may rely on: named prepared statements
   * (DB_PREPARED_STATEMENTS) and the timeouts sent as startup parameters (DB_SESSION_PARAMETERS).
   * Both on by default; off behind a transaction pooler.
   */
  databaseSession: { preparedStatements: boolean; sessionParameters: boolean };
  /** Deadline of each production start-up check (database, broker answer). */
  startupCheckTimeoutMs: number;
  /** The api and the dispatcher apply pending migrations at start (MIGRATE_ON_START); off when a separate step migrates. */
  migrateOnStart: boolean;
  /** Bounded waits on PostgreSQL: pool checkout, one statement, an idle open transaction. */
  databaseTimeouts: { connectionTimeoutMs: number; statementTimeoutMs: number; idleInTransactionTimeoutMs: number };
  /**
   * The broker's nodes (AMQP_URL: one URL, or a comma-separated list naming every node of a
   * cluster). The apps' connections try them in turn and move to the next one when a node is lost.
   */
  amqpUrls: string[];
  /** The first of `amqpUrls`: for one-off connections (tools, tests) that need no failover. */
  amqpUrl: string;
  /** Prefix for exchange and queue names, so that several deployments or test runs can share a broker. */
  amqpPrefix: string;
  /**
   * Type and delivery limits of the events, ingestion and dead-letter queues (AMQP_QUEUE_TYPE,
   * AMQP_DELIVERY_LIMIT, AMQP_INGEST_DELIVERY_LIMIT); the limits apply to quorum queues only.
   */
  amqpQueues: { type: 'classic' | 'quorum'; eventsDeliveryLimit: number; ingestDeliveryLimit: number };
  publicBaseUrl: string;
  /** First key signs; all keys verify (rotation). */
  jwtSigningKeys: SigningKey[];
  jwtIssuer: string;
  jwtAudience: string;
  tokenLifetimeSeconds: number;
  secretsKey: Buffer;
  cursorKey: Buffer;
  telemetryMaxRangeDays: number;
  /** Whether the api consumes the gateway telemetry queue (INGEST_CONSUMER, default on; `off` disables). */
  ingestConsumer: boolean;
  /** Largest telemetry/AIS queue message the api parses; larger ones are dead-lettered unread. */
  ingestMaxMessageBytes: number;
  /** Largest events-queue message the dispatcher reads; larger ones are dead-lettered unread (EVENTS_MAX_MESSAGE_BYTES). */
  eventsMaxMessageBytes: number;
  webhookRetryScheduleSeconds: number[];
  webhookAllowPrivateTargets: boolean;
  /** Per attempt: connect + TLS + response headers (spec §6.5: 10 s). Lowered only by tests. */
  webhookTimeoutMs: number;
  /**
   * Per new connection: TCP connect + TLS handshake after the host name resolved (WEBHOOK_CONNECT_TIMEOUT_MS), so a
   * peer that accepts TCP and never completes the handshake holds a delivery slot this long, not webhookTimeoutMs.
   */
  webhookConnectTimeoutMs: number;
  /** Attempts in flight in one dispatcher process. */
  webhookConcurrency: number;
  /**
   * Idle keep-alive sockets one dispatcher process keeps over all receiver origins together
   * (WEBHOOK_MAX_IDLE_SOCKETS, default 3 × WEBHOOK_CONCURRENCY); past it the least recently used
   * closes (TLS sessions are resumed).
   */
  webhookMaxIdleSockets: number;
  /** Attempts in flight to one endpoint in one dispatcher process: a slow receiver cannot take every slot. */
  webhookConcurrencyPerEndpoint: number;
  /** Attempts in flight for one account in one dispatcher process: one tenant cannot take every slot (default a quarter of webhookConcurrency). */
  webhookConcurrencyPerAccount: number;
  /** DNS servers the dispatcher and the endpoint check resolve webhook hosts with (c-ares, not the thread pool); undefined: the system's (dns.getServers()). */
  webhookDnsServers: string[] | undefined;
  /** Deadline of one webhook host name resolution. */
  webhookDnsTimeoutMs: number;
  /** Endpoints one account may register (panel and CLI). */
  webhookMaxEndpointsPerAccount: number;
  /** Bodies of closed deliveries are deleted after this many days by the api's housekeeping; the attempt log keeps its last 100 per endpoint. */
  webhookRetentionDays: number;
  /**
   * How long this deployment keeps telemetry, in days (null: for ever). The service never deletes
   * telemetry itself; operators who drop old telemetry partitions declare it here, and the audit
   * trail is never kept shorter (AUDIT_RETENTION_DAYS).
   */
  telemetryRetentionDays: number | null;
  /**
   * Audit records older than this many days are dropped by the hourly housekeeping, a whole
   * monthly partition at a time (null: kept for ever). Never shorter than telemetryRetentionDays.
   */
  auditRetentionDays: number | null;
  /** Most events one "recover failed deliveries since …" run queues (panel and `webhooks:recover`); a larger backlog takes several runs. */
  webhookRecoveryMaxEvents: number;
  /** Unacknowledged event messages the dispatcher holds at once. */
  webhookPrefetch: number;
  /** Fallback scan for due deliveries (new ones and retries also wake the worker directly). */
  webhookPollIntervalMs: number;
  /** `OUTBOX_RELAY=off` keeps an api replica from publishing (e.g. a read-only replica). */
  outboxRelayEnabled: boolean;
  /** Fallback scan of the outbox (LISTEN/NOTIFY wakes the relay at once). */
  outboxPollIntervalMs: number;
  /** Longest wait for RabbitMQ to confirm an outbox batch before it is rolled back and retried. */
  outboxConfirmTimeoutMs: number;
  /** Published outbox rows are kept this long for diagnosis, then deleted by the api's housekeeping. */
  outboxRetentionDays: number;
  smtpUrl: string | undefined;
  /** Longest wait of each SMTP stage (connect, greeting, each reply) when sending e-mail. */
  smtpTimeoutMs: number;
  /** Longest whole SMTP exchange of one e-mail (a server that drips its replies never trips the per-stage timeout); then it is aborted and retried. */
  smtpSendTimeoutMs: number;
  rateLimitPerMinute: number;
  tokenRateLimitPerMinute: number;
  /**
   * Redis that counts the per-credential and token-endpoint limits for every api replica together
   * (REDIS_URL, `redis://` or `rediss://`); undefined: each replica counts in its own memory.
   */
  redisUrl: string | undefined;
  /** Prefix of the api's Redis keys, so that several deployments or test runs can share a Redis. */
  redisKeyPrefix: string;
  /** Longest wait for Redis to connect or to answer one command; then the in-memory insurance limiter answers. */
  redisTimeoutMs: number;
  /** Panel sign-in attempts per client address (IPv6: per /64) per 15 minutes. */
  panelSignInAttemptsPerIp: number;
  /** Ceiling of failed panel sign-ins per e-mail address per 24 hours, from networks where it has not signed in lately. */
  panelSignInFailuresPerEmail: number;
  /** Failed panel sign-ins of one e-mail address from one client network before each attempt waits a growing delay. */
  panelSignInFailuresPerNetwork: number;
  /** Longest of those delays (they double from 1 s). */
  panelSignInMaxDelaySeconds: number;
  /** State-changing panel requests (every POST) per signed-in person per minute. */
  panelPostsPerMinute: number;
  /** Webhook test events and manual resends per account per hour (panel; the API when it has them). */
  webhookTestEventsPerHour: number;
  /** Webhook endpoint registrations per account per hour. */
  webhookEndpointCreatesPerHour: number;
  /** Submissions of the invitation password page per client address (IPv6: per /64) per minute. */
  invitationAcceptsPerMinute: number;
  /** User invitations (each one an e-mail) per account per hour, through the API. */
  userInvitationsPerHour: number;
  logLevel: string;
  /** Express `trust proxy`: who may set X-Forwarded-For (the client IP of the token endpoint's rate limit). */
  trustProxy: boolean | number | string;
}

/**
 * A configuration the apps refuse. `problems` holds one sentence per wrong setting (all of them,
 * not only the first): an entry point prints one line each.
 */
export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string | string[]) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.join('; '));
    this.problems = list;
  }
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
  }
  return value;
}

/** The shortest audit retention: a month is what one housekeeping drop removes. */
export const MIN_AUDIT_RETENTION_DAYS = 31;

/**
 * TELEMETRY_RETENTION_DAYS and AUDIT_RETENTION_DAYS, unset meaning "for ever". The trail is kept at
 * least as long as the telemetry it relates to (EU GDP, 21 CFR Part 11 §11.10(e)): a shorter one,
 * or one at all while telemetry is kept for ever, is refused.
 */
export function parseRetention(env: Env): { telemetryRetentionDays: number | null; auditRetentionDays: number | null } {
  const problems: string[] = [];
  const days = (name: string, min: number): number | null => {
    if (env[name] === undefined || env[name] === '') return null;
    try {
      return integer(env, name, 0, min, 36_500);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return null;
    }
  };
  const telemetryRetentionDays = days('TELEMETRY_RETENTION_DAYS', 1);
  const auditRetentionDays = days('AUDIT_RETENTION_DAYS', MIN_AUDIT_RETENTION_DAYS);
  if (auditRetentionDays !== null && problems.length === 0) {
    if (telemetryRetentionDays === null) {
      problems.push(
        `AUDIT_RETENTION_DAYS (${auditRetentionDays}) would drop audit records of telemetry that is kept for ever (TELEMETRY_RETENTION_DAYS is not set): unset AUDIT_RETENTION_DAYS, or declare the telemetry retention`,
      );
    } else if (auditRetentionDays < telemetryRetentionDays) {
      problems.push(
        `AUDIT_RETENTION_DAYS (${auditRetentionDays}) must be at least TELEMETRY_RETENTION_DAYS (${telemetryRetentionDays}): the audit trail is kept as long as the telemetry it relates to`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { telemetryRetentionDays, auditRetentionDays };
}

function boolean(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  return raw === '1' || raw === 'true' || raw === 'yes';
}

/** A switch that is on unless set to `false`/`off`/`0`/`no`, and must be one of the known words. */
function onOffSwitch(env: Env, name: string): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '' || ['true', 'on', '1', 'yes'].includes(raw)) return true;
  if (['false', 'off', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false (got "${env[name]}")`);
}

/** The part of a URL safe to print: scheme, host, port and path, never the credentials. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.username || url.password) {
      url.username = url.username ? '***' : '';
      url.password = '';
    }
    url.search = '';
    return url.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** The URL, or undefined when it does not parse. */
function parsedUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * A URL setting: parses, has one of `protocols` and a host. The message never repeats the value
 * (it may hold a password), only what is wrong and an example.
 */
function checkUrl(env: Env, name: string, protocols: string[], example: string): string | undefined {
  const value = (env[name] ?? '').trim();
  if (value === '') return undefined;
  const url = parsedUrl(value);
  if (!url) throw new ConfigError(`${name} is not a URL: expected one such as ${example}`);
  if (!protocols.includes(url.protocol.replace(/:$/, '')) || url.hostname === '') {
    throw new ConfigError(`${name} must be a URL of scheme ${protocols.join(' or ')} with a host, such as ${example}`);
  }
  return value;
}

const AMQP_EXAMPLE = 'amqp://user:password@rabbitmq:5672';
const DEFAULT_AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

/**
 * AMQP_URL: one amqp(s) URL, or a comma-separated list of them (the nodes of one cluster; a comma
 * in a password is written %2C). Every entry is checked; messages name the entry by position only.
 */
function parseAmqpUrls(raw: string | undefined): string[] {
  const value = (raw ?? '').trim();
  if (value === '') return [DEFAULT_AMQP_URL];
  const entries = value.split(',').map((entry) => entry.trim());
  const where = (index: number): string => (entries.length > 1 ? ` (entry ${index + 1} of the list)` : '');
  entries.forEach((entry, index) => {
    if (entry === '') throw new ConfigError(`AMQP_URL has an empty entry${where(index)}: expected one URL such as ${AMQP_EXAMPLE}, or a comma-separated list of them`);
    const url = parsedUrl(entry);
    if (!url) throw new ConfigError(`AMQP_URL is not a URL${where(index)}: expected one such as ${AMQP_EXAMPLE}, or a comma-separated list of them`);
    if (!['amqp:', 'amqps:'].includes(url.protocol) || url.hostname === '') {
      throw new ConfigError(`AMQP_URL must be a URL of scheme amqp or amqps with a host${where(index)}, such as ${AMQP_EXAMPLE}, or a comma-separated list of them`);
    }
  });
  return entries;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `true`, `false`, a hop count, or a comma-separated list of loopback/linklocal/uniquelocal, addresses and CIDR ranges. */
function parseTrustProxy(raw: string | undefined): boolean | number | string {
  const value = (raw ?? '').trim() || 'loopback';
  if (value === 'true' || value === 'false') return value === 'true';
  if (/^\d{1,3}$/.test(value)) return Number(value);
  for (const part of value.split(',').map((p) => p.trim())) {
    const [address, bits, extra] = part.split('/');
    const prefixOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
    if (PROXY_NAMES.has(part) || (isIP(address) !== 0 && prefixOk && extra === undefined)) continue;
    throw new ConfigError(`TRUST_PROXY must be true, false, a hop count, or a comma-separated list of loopback, linklocal, uniquelocal, IP addresses and CIDR ranges (got "${raw}")`);
  }
  return value;
}

/** REDIS_URL: unset or empty, or a `redis://` / `rediss://` URL with a host (the credentials stay in the URL). */
function parseRedisUrl(raw: string | undefined): string | undefined {
  const value = (raw ?? '').trim();
  if (value === '') return undefined;
  const url = parsedUrl(value);
  if (!url || !['redis:', 'rediss:'].includes(url.protocol) || url.hostname === '' || !/^(\/\d{0,2})?$/.test(url.pathname)) {
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379 or redis://:password@redis:6379/0');
  }
  return value;
}

/** REDIS_KEY_PREFIX: letters, digits and `._:-` (default `coldchain`). */
function parseRedisKeyPrefix(raw: string | undefined): string {
  const value = (raw ?? '').trim() || 'coldchain';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(value)) throw new ConfigError(`REDIS_KEY_PREFIX must be 1-64 letters, digits, '.', '_', ':' or '-' (got "${raw}")`);
  return value;
}

/** OPS_HOST: an IP address to bind (default loopback: nothing outside the host or container sees the port). */
function parseOpsHost(raw: string | undefined): string {
  const value = (raw ?? '').trim() || '127.0.0.1';
  if (isIP(value) === 0) throw new ConfigError(`OPS_HOST must be an IP address such as 127.0.0.1, 0.0.0.0 or :: (got "${raw}")`);
  return value;
}

/** A feature that runs unless switched off: `off`, `false`, `0` or `no` (any case). */
/** Classic by default: an existing deployment's queues are classic and a queue cannot change type in place. */
function parseQueueType(raw: string | undefined): 'classic' | 'quorum' {
  const value = (raw ?? '').trim().toLowerCase();
  if (value === '' || value === 'classic') return 'classic';
  if (value === 'quorum') return 'quorum';
  throw new ConfigError(`AMQP_QUEUE_TYPE must be classic or quorum (got "${raw}")`);
}

function switchedOn(raw: string | undefined): boolean {
  return !['off', 'false', '0', 'no'].includes((raw ?? '').trim().toLowerCase());
}

function parseSigningKeys(raw: string): SigningKey[] {
  return raw.split(',').map((entry, index) => {
    const separator = entry.indexOf(':');
    const kid = separator > 0 ? entry.slice(0, separator).trim() : `k${index + 1}`;
    const secret = separator > 0 ? entry.slice(separator + 1).trim() : entry.trim();
    if (secret.length < 32) throw new ConfigError('JWT_SIGNING_KEYS: every key must have at least 32 characters');
    return { kid, secret };
  });
}

/** `1.1.1.1`, `1.1.1.1:5353`, `2001:db8::1`, `[2001:db8::1]:5353`, comma separated. */
function parseDnsServers(raw: string | undefined): string[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const servers = raw.split(',').map((part) => part.trim());
  for (const server of servers) {
    const match = /^\[([^\]]+)\]:(\d{1,5})$/.exec(server) ?? /^([^:]+):(\d{1,5})$/.exec(server);
    const address = match ? match[1] : server;
    const port = match ? Number(match[2]) : 53;
    if (isIP(address) === 0 || port < 1 || port > 65535) {
      throw new ConfigError(`WEBHOOK_DNS_SERVERS must be a comma-separated list of IP addresses, each with an optional :port (got "${raw}")`);
    }
  }
  return servers;
}

function parseRetrySchedule(raw: string | undefined): number[] {
  if (!raw) return [10, 60, 300, 1800, 7200, 21600];
  const values = raw.split(',').map((part) => Number(part.trim()));
  if (values.length !== 6 || values.some((v) => !Number.isFinite(v) || v < 0)) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE must be six non-negative numbers of seconds, comma separated');
  }
  return values;
}

/** Markers of the development keys and of the placeholders shipped in docker/docker-compose.yml. */
const PLACEHOLDER_SECRET = /change-?me|placeholder|dev-only|example|insecure|not-?secret/i;

/**
 * A secret that is public knowledge (a development key, the compose file's placeholder) or has
 * almost no variety (`aaaa…`, `0123…` repeated) protects nothing: production refuses it at start
 * instead of signing tokens and encrypting webhook secrets with it.
 */
function refusePlaceholderSecrets(env: Env): string[] {
  const problems: string[] = [];
  const secrets: Array<[string, string]> = [['SECRETS_KEY', env.SECRETS_KEY ?? '']];
  for (const entry of (env.JWT_SIGNING_KEYS ?? '').split(',')) {
    const separator = entry.indexOf(':');
    secrets.push(['JWT_SIGNING_KEYS', (separator > 0 ? entry.slice(separator + 1) : entry).trim()]);
  }
  for (const [name, value] of secrets) {
    if (value === '') continue; // missing: reported as such
    const known = value === DEV_SECRETS_KEY || value === DEV_SIGNING_KEY || PLACEHOLDER_SECRET.test(value);
    const problem = `NODE_ENV=production refuses the placeholder or development value of ${name}: set a random secret of at least 32 characters (for example the output of \`openssl rand -base64 48\`)`;
    if ((known || new Set(value).size < 10) && !problems.includes(problem)) problems.push(problem);
  }
  return problems;
}

/**
 * Reads and validates the environment once at boot. In production every secret must be set
 * explicitly; elsewhere development defaults keep `npm start` a one-command affair. Every wrong
 * setting is reported (ConfigError.problems), not only the first.
 */
export function loadConfig(env: Env = process.env): AppConfig {
  const problems: string[] = [];
  /** The parsed value, or `fallback` with the problem recorded: the rest is still checked. */
  const attempt = <T>(parse: () => T, fallback: T): T => {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return fallback;
    }
  };
  const int = (name: string, fallback: number, min: number, max: number): number => attempt(() => integer(env, name, fallback, min, max), fallback);
  const nodeEnv = env.NODE_ENV ?? 'development';
  const production = nodeEnv === 'production';
  if (production) {
    const missing = ['DATABASE_URL', 'JWT_SIGNING_KEYS', 'SECRETS_KEY', 'PUBLIC_BASE_URL'].filter((name) => !env[name]);
    if (missing.length > 0) problems.push(`NODE_ENV=production requires these settings: ${missing.join(', ')}`);
    problems.push(...refusePlaceholderSecrets(env));
  }
  const postgresExample = 'postgresql://user:password@db.internal:5432/coldchain';
  attempt(() => checkUrl(env, 'DATABASE_URL', ['postgres', 'postgresql'], postgresExample), undefined);
  attempt(() => checkUrl(env, 'DATABASE_DIRECT_URL', ['postgres', 'postgresql'], postgresExample), undefined);
  attempt(() => checkUrl(env, 'DATABASE_REPLICA_URL', ['postgres', 'postgresql'], postgresExample), undefined);
  const replicaMaxLagMs = int('DATABASE_REPLICA_MAX_LAG_MS', 5000, 100, 600_000);
  const amqpUrls = attempt(() => parseAmqpUrls(env.AMQP_URL), [DEFAULT_AMQP_URL]);
  attempt(() => checkUrl(env, 'PUBLIC_BASE_URL', ['http', 'https'], 'https://api.example.com'), undefined);
  attempt(() => checkUrl(env, 'SMTP_URL', ['smtp', 'smtps'], 'smtp://user:password@mail.internal:587'), undefined);
  const port = int('PORT', 3000, 0, 65535);
  const opsPort = int('OPS_PORT', 9464, 0, 65535);
  if (opsPort !== 0 && opsPort === port) problems.push(`OPS_PORT must differ from PORT (${port}): metrics and readiness details must not share the public port`);
  const secretsKeyText = env.SECRETS_KEY || DEV_SECRETS_KEY;
  if (secretsKeyText.length < 32) problems.push('SECRETS_KEY must have at least 32 characters');
  const jwtSigningKeys = attempt(() => parseSigningKeys(env.JWT_SIGNING_KEYS || `dev:${DEV_SIGNING_KEY}`), [{ kid: 'dev', secret: DEV_SIGNING_KEY }]);
  const secretsKey = createHash('sha256').update(`secrets:${secretsKeyText}`).digest();
  const webhookConcurrency = int('WEBHOOK_CONCURRENCY', 64, 1, 10_000);
  const webhookTimeoutMs = int('WEBHOOK_TIMEOUT_MS', 10_000, 50, 10_000);
  const databaseUrl = env.DATABASE_URL || EMBEDDED_DATABASE_URL;
  const config: AppConfig = {
    nodeEnv,
    port,
    dispatcherPort: int('DISPATCHER_PORT', 3001, 0, 65535),
    opsPort,
    opsHost: attempt(() => parseOpsHost(env.OPS_HOST), '127.0.0.1'),
    databaseUrl,
    databaseDirectUrl: env.DATABASE_DIRECT_URL || databaseUrl,
    databaseReplica: env.DATABASE_REPLICA_URL ? { url: env.DATABASE_REPLICA_URL, maxLagMs: replicaMaxLagMs } : undefined,
    databaseSession: {
      preparedStatements: attempt(() => onOffSwitch(env, 'DB_PREPARED_STATEMENTS'), true),
      sessionParameters: attempt(() => onOffSwitch(env, 'DB_SESSION_PARAMETERS'), true),
    },
    startupCheckTimeoutMs: int('STARTUP_CHECK_TIMEOUT_MS', 10_000, 100, 600_000),
    migrateOnStart: attempt(() => onOffSwitch(env, 'MIGRATE_ON_START'), true),
    databaseTimeouts: {
      connectionTimeoutMs: int('DB_CONNECTION_TIMEOUT_MS', 5000, 100, 600_000),
      statementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', 30_000, 100, 3_600_000),
      idleInTransactionTimeoutMs: int('DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000, 100, 3_600_000),
    },
    amqpUrls,
    amqpUrl: amqpUrls[0],
    amqpPrefix: env.AMQP_PREFIX || 'coldchain',
    amqpQueues: {
      type: attempt(() => parseQueueType(env.AMQP_QUEUE_TYPE), 'classic'),
      eventsDeliveryLimit: int('AMQP_DELIVERY_LIMIT', 20, 1, 1_000_000),
      ingestDeliveryLimit: int('AMQP_INGEST_DELIVERY_LIMIT', 1000, 1, 1_000_000),
    },
    publicBaseUrl: (env.PUBLIC_BASE_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    jwtSigningKeys,
    jwtIssuer: env.JWT_ISSUER || 'coldchain-public-api',
    jwtAudience: env.JWT_AUDIENCE || 'coldchain-public-api-v1',
    tokenLifetimeSeconds: int('TOKEN_LIFETIME_SECONDS', 3600, 60, 3600),
    secretsKey,
    cursorKey: createHash('sha256').update(`cursor:${jwtSigningKeys[0].secret}`).digest(),
    telemetryMaxRangeDays: int('TELEMETRY_MAX_RANGE_DAYS', 31, 1, 3660),
    ingestConsumer: switchedOn(env.INGEST_CONSUMER),
    ingestMaxMessageBytes: int('INGEST_MAX_MESSAGE_BYTES', 4 * 1_048_576, 1024, 64 * 1_048_576),
    eventsMaxMessageBytes: int('EVENTS_MAX_MESSAGE_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    webhookRetryScheduleSeconds: attempt(() => parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE), [10, 60, 300, 1800, 7200, 21600]),
    webhookAllowPrivateTargets: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'),
    webhookTimeoutMs,
    // Never beyond the attempt's own timeout, which also covers the connection.
    webhookConnectTimeoutMs: Math.min(webhookTimeoutMs, int('WEBHOOK_CONNECT_TIMEOUT_MS', 3000, 50, 10_000)),
    webhookConcurrency,
    webhookConcurrencyPerEndpoint: int('WEBHOOK_CONCURRENCY_PER_ENDPOINT', 4, 1, 1_000),
    webhookMaxIdleSockets: int('WEBHOOK_MAX_IDLE_SOCKETS', 3 * webhookConcurrency, 0, 100_000),
    webhookConcurrencyPerAccount: int('WEBHOOK_CONCURRENCY_PER_ACCOUNT', Math.ceil(webhookConcurrency / 4), 1, 10_000),
    webhookDnsServers: attempt(() => parseDnsServers(env.WEBHOOK_DNS_SERVERS), undefined),
    webhookDnsTimeoutMs: int('WEBHOOK_DNS_TIMEOUT_MS', 3000, 50, 10_000),
    webhookMaxEndpointsPerAccount: int('WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT', 20, 1, 10_000),
    webhookRetentionDays: int('WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    ...attempt(() => parseRetention(env), { telemetryRetentionDays: null, auditRetentionDays: null }),
    webhookRecoveryMaxEvents: int('WEBHOOK_RECOVERY_MAX_EVENTS', 10_000, 1, 1_000_000),
    webhookPrefetch: int('WEBHOOK_PREFETCH', 50, 1, 10_000),
    webhookPollIntervalMs: int('WEBHOOK_POLL_INTERVAL_MS', 1000, 10, 60_000),
    outboxRelayEnabled: switchedOn(env.OUTBOX_RELAY),
    outboxPollIntervalMs: int('OUTBOX_POLL_INTERVAL_MS', 1000, 10, 60_000),
    outboxConfirmTimeoutMs: int('OUTBOX_CONFIRM_TIMEOUT_MS', 10_000, 100, 600_000),
    outboxRetentionDays: int('OUTBOX_RETENTION_DAYS', 7, 1, 3650),
    smtpUrl: env.SMTP_URL || undefined,
    smtpTimeoutMs: int('SMTP_TIMEOUT_MS', 10_000, 100, 300_000),
    // Below the outbox's 300 s lease on a claimed e-mail, so no second sender takes it mid-send.
    smtpSendTimeoutMs: int('SMTP_SEND_TIMEOUT_MS', 30_000, 100, 240_000),
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
    tokenRateLimitPerMinute: int('TOKEN_RATE_LIMIT_PER_MINUTE', 60, 1, 10_000_000),
    redisUrl: attempt(() => parseRedisUrl(env.REDIS_URL), undefined),
    redisKeyPrefix: attempt(() => parseRedisKeyPrefix(env.REDIS_KEY_PREFIX), 'coldchain'),
    redisTimeoutMs: int('REDIS_TIMEOUT_MS', 500, 10, 10_000),
    panelSignInAttemptsPerIp: int('PANEL_SIGN_IN_ATTEMPTS_PER_IP', 30, 1, 10_000_000),
    panelSignInFailuresPerEmail: int('PANEL_SIGN_IN_FAILURES_PER_EMAIL', 100, 1, 100_000),
    panelSignInFailuresPerNetwork: int('PANEL_SIGN_IN_FAILURES_PER_NETWORK', 5, 1, 1000),
    panelSignInMaxDelaySeconds: int('PANEL_SIGN_IN_MAX_DELAY_SECONDS', 900, 1, 86_400),
    panelPostsPerMinute: int('PANEL_POSTS_PER_MINUTE', 60, 1, 10_000_000),
    webhookTestEventsPerHour: int('WEBHOOK_TEST_EVENTS_PER_HOUR', 30, 1, 10_000_000),
    webhookEndpointCreatesPerHour: int('WEBHOOK_ENDPOINT_CREATES_PER_HOUR', 20, 1, 10_000_000),
    invitationAcceptsPerMinute: int('INVITATION_ACCEPTS_PER_MINUTE', 10, 1, 10_000_000),
    userInvitationsPerHour: int('USER_INVITATIONS_PER_HOUR', 20, 1, 10_000_000),
    logLevel: env.LOG_LEVEL || (production ? 'info' : 'info'),
    trustProxy: attempt(() => parseTrustProxy(env.TRUST_PROXY), 'loopback'),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** For an app's entry point: a configuration error ends the process with a one-line message (exit 78). */
export function loadConfigOrExit(app: string, env: Env = process.env): AppConfig {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(error.problems.map((problem) => `${app}: configuration error: ${problem}\n`).join(''));
    process.exit(78);
  }
}
