import type { AccountId } from '@app/vocabulary';
import type { DeliveryOrigin, DeliveryStatus } from './delivery-records';

/**
 * How an endpoint's requests are signed. `service-v1`: the spec's X-Service-* headers (the
 * default). `standard-webhooks`: the same headers, unchanged, plus the Standard Webhooks ones
 * (webhook-id, webhook-timestamp, webhook-signature), so a receiver can switch at its own pace.
 */
export const SIGNATURE_FORMATS = ['service-v1', 'standard-webhooks'] as const;
export type SignatureFormat = (typeof SIGNATURE_FORMATS)[number];
export const DEFAULT_SIGNATURE_FORMAT: SignatureFormat = 'service-v1';

/** How long a replaced secret keeps signing Standard Webhooks requests beside the new one (Svix keeps 24 hours too). */
export const SECRET_ROTATION_WINDOW_HOURS = 24;

/** What the panel and the CLI show of an endpoint. The signing secret is never part of it. */
export interface WebhookEndpointView {
  id: string;
  account_id: AccountId;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  /** Failed attempts since the last success; 20 disable the endpoint. */
  consecutive_failures: number;
  disabled_at: string | null;
  disabled_reason: string | null;
  secret_rotated_at: string | null;
  signature_format: SignatureFormat;
  /**
   * Until when the secret replaced by the last rotation still signs (a second `webhook-signature`
   * entry of Standard Webhooks requests); null when no window runs.
   */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreatedWebhookEndpoint extends WebhookEndpointView {
  /** Shown exactly once. */
  signing_secret: string;
}

export interface RotatedWebhookSecret {
  endpoint: WebhookEndpointView;
  /** Shown exactly once; in force for the next attempt. */
  signing_secret: string;
}

/** One line of the attempt log (the last 100 per endpoint are kept). */
export interface WebhookAttemptView {
  /** The X-Service-Delivery-ID of the attempt. */
  delivery_id: string;
  webhook_delivery_id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  attempted_at: string;
  outcome: 'succeeded' | 'retry' | 'failed';
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** Who queued the attempt's delivery: the fan-out (`event`), a hand resend, a test, a recovery; null once it is pruned. */
  origin: DeliveryOrigin | null;
  /** The delivery was queued by a recovery (origin `recover`, or `event` for an event the endpoint never got). */
  recovered: boolean;
  /** Where the attempt's delivery stands now: a failed attempt's retries may since have succeeded, failed or been cancelled. */
  delivery_status: DeliveryStatus | null;
}

export interface QueuedWebhookDelivery {
  webhook_delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  origin: DeliveryOrigin;
}

export interface CreateWebhookEndpointInput {
  url: string;
  events: string[];
  description?: string | null;
  /** Default `service-v1`. */
  signature_format?: string;
  /** The web panel's form id: a resubmitted form creates nothing twice (WebhookEndpointAlreadyCreatedError). */
  id?: string;
}

export interface UpdateWebhookEndpointInput {
  url?: string;
  events?: string[];
  description?: string | null;
  signature_format?: string;
}

export interface WebhookEndpointsOptions {
  /** AES-256-GCM key for signing secrets at rest (AppConfig.secretsKey). */
  secretsKey: Buffer;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS. */
  allowPrivateTargets: boolean;
  /** DNS used by the registration check; tests inject one. Default: a WebhookDnsResolver on `dnsServers`. */
  resolver?: (hostname: string) => Promise<string[]>;
  /** WEBHOOK_DNS_SERVERS (default: the system's resolvers). */
  dnsServers?: string[];
  /** WEBHOOK_DNS_TIMEOUT_MS (default 3000). */
  dnsTimeoutMs?: number;
  /** WEBHOOK_MAX_ENDPOINTS_PER_ACCOUNT (default 20). */
  maxEndpointsPerAccount?: number;
}
