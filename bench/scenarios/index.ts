import { apiDetail } from './api-detail';
import { apiList } from './api-list';
import { auditList } from './audit-list';
import { auditWriteCost } from './audit-write-cost';
import { eventLatency } from './event-latency';
import { ingest } from './ingest';
import { replica } from './replica';
import type { Scenario } from './scenario';
import { telemetryBucket } from './telemetry-bucket';
import { telemetryRead } from './telemetry-read';
import { webhookClaimCost } from './webhook-claim-cost';
import { webhookDispatchers } from './webhook-dispatchers';
import { webhookFloor } from './webhook-floor';
import { webhookOrigins } from './webhook-origins';
import { webhookTenants } from './webhook-tenants';
import { webhooks } from './webhooks';

/** In run order; `memory` is reported after all of them (see memory.ts). */
export const SCENARIOS: readonly Scenario[] = [apiList, apiDetail, telemetryRead, telemetryBucket, ingest, webhooks, webhookFloor, webhookTenants, webhookClaimCost, webhookOrigins, webhookDispatchers, eventLatency, replica, auditWriteCost, auditList];
