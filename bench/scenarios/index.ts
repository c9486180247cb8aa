import { apiDetail } from './api-detail';
import { apiList } from './api-list';
import { eventLatency } from './event-latency';
import { ingest } from './ingest';
import type { Scenario } from './scenario';
import { telemetryBucket } from './telemetry-bucket';
import { telemetryRead } from './telemetry-read';
import { webhookClaimCost } from './webhook-claim-cost';
import { webhookTenants } from './webhook-tenants';
import { webhooks } from './webhooks';

/** In run order; `memory` is reported after all of them (see memory.ts). */
export const SCENARIOS: readonly Scenario[] = [apiList, apiDetail, telemetryRead, telemetryBucket, ingest, webhooks, webhookTenants, webhookClaimCost, eventLatency];
