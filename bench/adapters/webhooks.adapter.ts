import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { AccountId } from '@app/vocabulary';

/** An endpoint as the bench needs it: where it points and the secret its deliveries are signed with. */
export interface BenchEndpoint {
  id: string;
  url: string;
  secret: string;
}

/** The slice of libs/webhooks (feat/events: WebhookEndpointsService) the bench calls. */
interface WebhookEndpointsServiceLike {
  create(accountId: AccountId, input: { url: string; events: string[]; description?: string | null }): Promise<{ id: string; signing_secret: string }>;
}
type WebhookEndpointsServiceClass = new (dataSource: DataSource, options: { secretsKey: Buffer; allowPrivateTargets: boolean; maxEndpointsPerAccount?: number }) => WebhookEndpointsServiceLike;

const WEBHOOKS_LIB = 'dist/libs/webhooks/src/index.js';

/**
 * LEAD — wiring point for the webhook scenarios. Written against feat/events as of 2fcf2cb
 * (`new WebhookEndpointsService(dataSource, { secretsKey, allowPrivateTargets })`,
 * `.create(accountId, { url, events })` → `{ id, signing_secret, ... }`). Loaded at run time from the
 * compiled lib because the class is not on this branch yet; once merged, this may become a plain
 * `import { WebhookEndpointsService } from '@app/webhooks'`. Returns null when the service is absent.
 */
async function endpointsServiceClass(root: string): Promise<WebhookEndpointsServiceClass | null> {
  const file = join(root, WEBHOOKS_LIB);
  if (!existsSync(file)) return null;
  const lib = (await import(file)) as { WebhookEndpointsService?: unknown };
  return typeof lib.WebhookEndpointsService === 'function' ? (lib.WebhookEndpointsService as WebhookEndpointsServiceClass) : null;
}

export async function webhookEndpointsAvailable(root: string): Promise<boolean> {
  return (await endpointsServiceClass(root)) !== null;
}

/** Registers an endpoint through the domain service (validation, encrypted secret), as the CLI does. */
export async function createWebhookEndpoint(
  root: string,
  db: DataSource,
  secretsKey: Buffer,
  accountId: AccountId,
  url: string,
  events: string[],
  maxEndpointsPerAccount?: number,
): Promise<BenchEndpoint> {
  const Service = await endpointsServiceClass(root);
  if (!Service) throw new Error(`WebhookEndpointsService not found in ${WEBHOOKS_LIB}`);
  const created = await new Service(db, { secretsKey, allowPrivateTargets: true, maxEndpointsPerAccount }).create(accountId, { url, events, description: 'bench' });
  return { id: created.id, url, secret: created.signing_secret };
}

/** Broker names of the event pipeline under the run's prefix, when libs/events exports them (feat/events). */
export async function eventBrokerNames(root: string, prefix: string): Promise<{ queues: string[]; exchanges: string[] }> {
  const file = join(root, 'dist/libs/events/src/index.js');
  const lib = existsSync(file) ? ((await import(file)) as { eventTopology?: unknown }) : {};
  if (typeof lib.eventTopology !== 'function') return { queues: [], exchanges: [] };
  const names = (lib.eventTopology as (p: string) => Record<string, string>)(prefix);
  const values = Object.values(names);
  return { queues: values.filter((n) => !n.endsWith('.events') && !n.endsWith('.events.dead')), exchanges: values.filter((n) => n.endsWith('.events') || n.endsWith('.events.dead')) };
}
