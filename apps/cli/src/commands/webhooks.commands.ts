import type { Command } from 'commander';
import {
  ATTEMPTS_KEPT_PER_ENDPOINT,
  SECRET_ROTATION_WINDOW_HOURS,
  SIGNATURE_FORMATS,
  WebhookEndpointLimitError,
  WebhookEndpointsService,
  WebhookInputError,
  WebhookNotFoundError,
  WebhookRecovery,
  WebhookStateError,
  parseRecoverySince,
  type WebhookAttemptView,
  type WebhookEndpointView,
} from '@app/webhooks';
import { UUID_PATTERN as UUID, toAccountId, type AccountId } from '@app/vocabulary';
import { CliError, list, output, withContext, type CliContext } from '../cli-context';


/** What a command prints: the --json document, or the human summary. */
export interface CommandOutput {
  json: unknown;
  human: string;
}

/**
 * Not rate limited, unlike the same actions in the panel: the CLI is the operator's tool, run with
 * DATABASE_URL and SECRETS_KEY on a host tenants cannot reach, so a limit here would guard against
 * nobody (the operator can write the rows directly), and each run is a new process whose counters
 * would start empty anyway.
 */
function service({ dataSource, config }: CliContext): WebhookEndpointsService {
  return new WebhookEndpointsService(dataSource, {
    secretsKey: config.secretsKey,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    dnsServers: config.webhookDnsServers,
    dnsTimeoutMs: config.webhookDnsTimeoutMs,
    maxEndpointsPerAccount: config.webhookMaxEndpointsPerAccount,
  });
}

function requireId(value: string | undefined, what: string): string {
  if (!value || !UUID.test(value)) throw new CliError(`${what}: expected a UUID, got "${value ?? ''}"`);
  return value;
}

/** The operator names the tenant on the command line: the CLI's source of an AccountId. */
function requireAccountId(value: string | undefined): AccountId {
  return toAccountId(requireId(value, '--account'));
}

/** Service refusals become one-line CLI errors (exit 2). */
async function refusals<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof WebhookInputError || error instanceof WebhookNotFoundError || error instanceof WebhookStateError || error instanceof WebhookEndpointLimitError) {
      throw new CliError(error.message);
    }
    throw error;
  }
}

/** Synchronous refusals (argument parsing) as CLI errors, before connecting. */
function refusalsNow<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof WebhookInputError) throw new CliError(`--${error.message}`);
    throw error;
  }
}

/** The CLI addresses endpoints by id alone; the service is tenant-scoped, so find the account first. */
async function accountOf(context: CliContext, endpointId: string): Promise<AccountId> {
  const accountId = await service(context).accountOfEndpoint(endpointId);
  if (!accountId) throw new CliError(`no webhook endpoint ${endpointId}`);
  return accountId;
}

function describe(endpoint: WebhookEndpointView): string {
  const state = endpoint.status === 'enabled' ? 'enabled' : `DISABLED ${endpoint.disabled_at ?? ''} (${endpoint.disabled_reason ?? 'no reason'})`;
  const format = endpoint.signature_format === 'service-v1' ? '' : `  [${endpoint.signature_format}]`;
  return `${endpoint.id}  ${state}  ${endpoint.events.join(',')}  ${endpoint.url}${format}`;
}

function describeAttempt(a: WebhookAttemptView): string {
  const status = a.status_code === null ? '---' : String(a.status_code);
  return `${a.attempted_at}  ${status}  ${a.outcome.padEnd(9)}  ${a.event_type}  event=${a.event_id}  delivery=${a.delivery_id}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ''}`;
}

export async function webhooksCreate(
  context: CliContext,
  options: { account?: string; url?: string; events?: string; description?: string; signatureFormat?: string },
): Promise<CommandOutput> {
  const accountId = requireAccountId(options.account);
  if (!options.url) throw new CliError('--url: an https:// address is required');
  const events = list(options.events ?? '');
  if (events.length === 0) throw new CliError('--events: at least one event type is required');
  const created = await refusals(() =>
    service(context).create(accountId, { url: options.url as string, events, description: options.description, signature_format: options.signatureFormat }),
  );
  return {
    json: created,
    human: [
      `Webhook endpoint created: ${created.id}`,
      `url:            ${created.url}`,
      `events:         ${created.events.join(', ')}`,
      `signature:      ${created.signature_format}`,
      `signing secret: ${created.signing_secret}`,
      'The signing secret is shown only now: store it with the receiver.',
    ].join('\n'),
  };
}

export async function webhooksList(context: CliContext, options: { account?: string }): Promise<CommandOutput> {
  const accountId = requireAccountId(options.account);
  const endpoints = await service(context).list(accountId);
  return { json: endpoints, human: endpoints.length === 0 ? 'No webhook endpoints.' : endpoints.map(describe).join('\n') };
}

/** Changes what is given (address, events, description, signature format); the secret stays. */
export async function webhooksUpdate(
  context: CliContext,
  endpointId: string,
  options: { url?: string; events?: string; description?: string; signatureFormat?: string },
): Promise<CommandOutput> {
  requireId(endpointId, '<endpoint-id>');
  const accountId = await accountOf(context, endpointId);
  const endpoint = await refusals(() =>
    service(context).update(accountId, endpointId, {
      url: options.url,
      events: options.events === undefined ? undefined : list(options.events),
      description: options.description,
      signature_format: options.signatureFormat,
    }),
  );
  return { json: endpoint, human: `Updated (the signing secret is unchanged): ${describe(endpoint)}` };
}

export async function webhooksRotateSecret(context: CliContext, endpointId: string): Promise<CommandOutput> {
  requireId(endpointId, '<endpoint-id>');
  const accountId = await accountOf(context, endpointId);
  const rotated = await refusals(() => service(context).rotateSecret(accountId, endpointId));
  return {
    json: { ...rotated.endpoint, signing_secret: rotated.signing_secret },
    human: [
      `Signing secret rotated for ${endpointId}; it signs every attempt from now on.`,
      `signing secret: ${rotated.signing_secret}`,
      'The signing secret is shown only now. Receivers may accept the old and the new secret during the switch.',
      ...(rotated.endpoint.signature_format === 'standard-webhooks'
        ? [`Standard Webhooks: webhook-signature carries a signature with each secret until ${rotated.endpoint.previous_secret_expires_at ?? ''}.`]
        : []),
    ].join('\n'),
  };
}

export async function webhooksEnable(context: CliContext, endpointId: string): Promise<CommandOutput> {
  requireId(endpointId, '<endpoint-id>');
  const accountId = await accountOf(context, endpointId);
  const endpoint = await refusals(() => service(context).enable(accountId, endpointId));
  return { json: endpoint, human: `Enabled: ${describe(endpoint)}` };
}

export async function webhooksDisable(context: CliContext, endpointId: string, options: { reason?: string } = {}): Promise<CommandOutput> {
  requireId(endpointId, '<endpoint-id>');
  const accountId = await accountOf(context, endpointId);
  const endpoint = await refusals(() => service(context).disable(accountId, endpointId, options.reason || undefined));
  return { json: endpoint, human: `Disabled (pending deliveries cancelled): ${describe(endpoint)}` };
}

export async function webhooksAttempts(context: CliContext, endpointId: string): Promise<CommandOutput> {
  requireId(endpointId, '<endpoint-id>');
  const accountId = await accountOf(context, endpointId);
  const attempts = await refusals(() => service(context).listAttempts(accountId, endpointId));
  return { json: attempts, human: attempts.length === 0 ? 'No delivery attempts yet.' : attempts.map(describeAttempt).join('\n') };
}

export async function webhooksTest(context: CliContext, endpointId: string): Promise<CommandOutput> {
  requireId(endpointId, '<endpoint-id>');
  const accountId = await accountOf(context, endpointId);
  const queued = await refusals(() => service(context).sendTestEvent(accountId, endpointId));
  return { json: queued, human: `Test event ${queued.event_id} queued for ${endpointId}; see webhooks:attempts ${endpointId}.` };
}

export async function webhooksResend(context: CliContext, options: { endpoint?: string; event?: string }): Promise<CommandOutput> {
  const endpointId = requireId(options.endpoint, '--endpoint');
  const eventId = requireId(options.event, '--event');
  const accountId = await accountOf(context, endpointId);
  const queued = await refusals(() => service(context).resend(accountId, endpointId, eventId));
  return { json: queued, human: `Event ${eventId} queued again for ${endpointId} (delivery ${queued.webhook_delivery_id}).` };
}

/**
 * Recovery after an outage: queues, once each, every event of the endpoint's subscribed types since
 * `--since` that it did not accept with a 2xx (at most WEBHOOK_RECOVERY_MAX_EVENTS a run; `more`
 * says to run it again). `--account`, when given, must be the endpoint's account (a guard against
 * a pasted id of the wrong tenant).
 */
export async function webhooksRecover(context: CliContext, options: { endpoint?: string; since?: string; account?: string }): Promise<CommandOutput> {
  const endpointId = requireId(options.endpoint, '--endpoint');
  const since = refusalsNow(() => parseRecoverySince(options.since ?? ''));
  const expected = options.account === undefined ? null : requireAccountId(options.account);
  const accountId = await accountOf(context, endpointId);
  if (expected !== null && expected.toLowerCase() !== accountId) throw new CliError(`no webhook endpoint ${endpointId} in account ${expected}`);
  const recovery = new WebhookRecovery(context.dataSource, { maxEvents: context.config.webhookRecoveryMaxEvents, retentionDays: context.config.webhookRetentionDays });
  const result = await refusals(() => recovery.recover(accountId, endpointId, since));
  const more = result.more ? ` The run stopped at its limit of ${result.limit}: run it again with --since ${result.resume_since} to queue the rest.` : '';
  return {
    json: { ...result, account_id: accountId },
    human: `${result.queued} event${result.queued === 1 ? '' : 's'} queued again for ${endpointId} since ${result.since}, each once.${more}`,
  };
}

/** Runs a command inside a database context and prints its output (arguments are checked before connecting). */
function run<A extends unknown[]>(command: (context: CliContext, ...args: A) => Promise<CommandOutput>, json: boolean | undefined, ...args: A): Promise<void> {
  return withContext(async (context) => {
    const result = await command(context, ...args);
    output(Boolean(json), result.json, result.human);
  });
}

export function registerWebhookCommands(program: Command): void {
  program
    .command('webhooks:create')
    .description('Register an https:// webhook endpoint for an account; the signing secret is printed once and never again')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--url <url>', 'https:// address of the receiver')
    .requiredOption('--events <types>', 'comma-separated event types: alarm.created, alarm.resolved, shipment.created, shipment.completed')
    .option('--description <text>', 'what the endpoint is')
    .option('--signature-format <format>', `${SIGNATURE_FORMATS.join(' or ')}: standard-webhooks adds the webhook-id, webhook-timestamp and webhook-signature headers to the X-Service-* ones`, 'service-v1')
    .option('--json', 'machine-readable output')
    .action((options: { account: string; url: string; events: string; description?: string; signatureFormat: string; json?: boolean }) => {
      requireAccountId(options.account);
      if (list(options.events).length === 0) throw new CliError('--events: at least one event type is required');
      return run(webhooksCreate, options.json, options);
    });

  program
    .command('webhooks:update')
    .description('Change an endpoint: address, events, description or signature format (the signing secret stays)')
    .argument('<endpoint-id>', 'endpoint id')
    .option('--url <url>', 'https:// address of the receiver')
    .option('--events <types>', 'comma-separated event types')
    .option('--description <text>', 'what the endpoint is')
    .option('--signature-format <format>', SIGNATURE_FORMATS.join(' or '))
    .option('--json', 'machine-readable output')
    .action((endpointId: string, options: { url?: string; events?: string; description?: string; signatureFormat?: string; json?: boolean }) => {
      requireId(endpointId, '<endpoint-id>');
      return run(webhooksUpdate, options.json, endpointId, options);
    });

  program
    .command('webhooks:list')
    .description("List an account's webhook endpoints (never their secrets)")
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'machine-readable output')
    .action((options: { account: string; json?: boolean }) => {
      requireAccountId(options.account);
      return run(webhooksList, options.json, options);
    });

  program
    .command('webhooks:rotate-secret')
    .description(`Generate a new signing secret, effective immediately; printed once (Standard Webhooks endpoints: the old one signs too for ${SECRET_ROTATION_WINDOW_HOURS} hours)`)
    .argument('<endpoint-id>', 'endpoint id')
    .option('--json', 'machine-readable output')
    .action((endpointId: string, options: { json?: boolean }) => {
      requireId(endpointId, '<endpoint-id>');
      return run(webhooksRotateSecret, options.json, endpointId);
    });

  program
    .command('webhooks:enable')
    .description('Re-enable an endpoint (e.g. after it was disabled for consecutive failures); resets its failure count')
    .argument('<endpoint-id>', 'endpoint id')
    .option('--json', 'machine-readable output')
    .action((endpointId: string, options: { json?: boolean }) => {
      requireId(endpointId, '<endpoint-id>');
      return run(webhooksEnable, options.json, endpointId);
    });

  program
    .command('webhooks:disable')
    .description('Disable an endpoint and cancel its pending deliveries')
    .argument('<endpoint-id>', 'endpoint id')
    .option('--reason <text>', 'shown with the endpoint')
    .option('--json', 'machine-readable output')
    .action((endpointId: string, options: { reason?: string; json?: boolean }) => {
      requireId(endpointId, '<endpoint-id>');
      return run(webhooksDisable, options.json, endpointId, options);
    });

  program
    .command('webhooks:attempts')
    .description(`The last ${ATTEMPTS_KEPT_PER_ENDPOINT} delivery attempts of an endpoint, newest first`)
    .argument('<endpoint-id>', 'endpoint id')
    .option('--json', 'machine-readable output')
    .action((endpointId: string, options: { json?: boolean }) => {
      requireId(endpointId, '<endpoint-id>');
      return run(webhooksAttempts, options.json, endpointId);
    });

  program
    .command('webhooks:test')
    .description('Send a webhook.test event to this endpoint only')
    .argument('<endpoint-id>', 'endpoint id')
    .option('--json', 'machine-readable output')
    .action((endpointId: string, options: { json?: boolean }) => {
      requireId(endpointId, '<endpoint-id>');
      return run(webhooksTest, options.json, endpointId);
    });

  program
    .command('webhooks:resend')
    .description('Send one event to an endpoint again (same event id and body, new delivery)')
    .requiredOption('--endpoint <id>', 'endpoint id')
    .requiredOption('--event <id>', 'event id (X-Service-Event-ID)')
    .option('--json', 'machine-readable output')
    .action((options: { endpoint: string; event: string; json?: boolean }) => {
      requireId(options.endpoint, '--endpoint');
      requireId(options.event, '--event');
      return run(webhooksResend, options.json, options);
    });

  program
    .command('webhooks:recover')
    .description('Send again, once each, every event since a time that the endpoint did not accept with a 2xx (failed, cancelled when it was disabled, or never sent while disabled)')
    .requiredOption('--endpoint <id>', 'endpoint id')
    .requiredOption('--since <time>', 'ISO 8601 date and time, e.g. 2026-11-26T06:00Z (UTC when no zone is given)')
    .option('--account <id>', "the endpoint's account (checked)")
    .option('--json', 'machine-readable output')
    .action((options: { endpoint: string; since: string; account?: string; json?: boolean }) => {
      requireId(options.endpoint, '--endpoint');
      refusalsNow(() => parseRecoverySince(options.since));
      if (options.account !== undefined) requireAccountId(options.account);
      return run(webhooksRecover, options.json, options);
    });
}
