import { writeFileSync } from 'node:fs';
import type { AccountId } from '@app/vocabulary';
import { createWebhookEndpoint, type BenchEndpoint } from '../adapters/webhooks.adapter';
import { peakRssMb, residentNow } from '../harness/proc-stats';
import { Receiver } from '../harness/receiver';
import type { ResultRow } from '../harness/report';
import { createAccount } from '../seed/tenant';
import type { BenchContext, Scenario } from './scenario';
import { checkDeliveryLedger, deliverRound, webhookFeatureGate } from './webhook-fixture';

const ORIGINS = 1000;
/** The default cap of endpoints per account: 50 accounts of 20 endpoints, each endpoint on an origin of its own. */
const ENDPOINTS_PER_ACCOUNT = 20;
const EVENTS_PER_ACCOUNT = 3;
const TARGET_MB = 150;
const TARGET = `dispatcher RSS ≤ ${TARGET_MB} MB`;

/**
 * Idle receivers cost nothing (issue 26): 1,000 endpoints, each on its own HTTPS origin (a loopback
 * server per port, certificate trusted through the test CA as in every webhook scenario), a few
 * events delivered to every one of them; then the dispatcher's peak RSS while doing it (VmHWM,
 * reset just before through /proc/<pid>/clear_refs), its RSS and descriptors after, when the idle
 * keep-alive sockets are what is left (WEBHOOK_MAX_IDLE_SOCKETS bounds them).
 */
export const webhookOrigins: Scenario = {
  name: 'webhook-origins',
  target: TARGET,
  ...webhookFeatureGate(),
  async run(ctx: BenchContext): Promise<ResultRow[]> {
    const dispatcher = ctx.dispatcher;
    if (!dispatcher) throw new Error('no dispatcher');
    const receiver = await Receiver.start(ctx.root, ctx.tls, ORIGINS);
    try {
      const ports = [...receiver.ports];
      const accounts: AccountId[] = [];
      const endpoints: BenchEndpoint[] = [];
      for (let a = 0; a < ORIGINS / ENDPOINTS_PER_ACCOUNT; a++) {
        const accountId = await createAccount(ctx.db, `Bench origins account ${a + 1}`);
        accounts.push(accountId);
        for (let e = 0; e < ENDPOINTS_PER_ACCOUNT; e++) {
          endpoints.push(await createWebhookEndpoint(ctx.root, ctx.db, ctx.config.secretsKey, accountId, `https://127.0.0.1:${ports.shift() as number}/origin`, ['alarm.created']));
        }
      }
      ctx.log(`  ${endpoints.length} endpoints on ${ORIGINS} origins ready`);
      dispatcher.peakRssMb(); // remembered for the memory row before the peak is reset
      const before = residentNow(dispatcher.pid);
      const peakReset = resetPeakRss(dispatcher.pid);
      const events = accounts.length * EVENTS_PER_ACCOUNT;
      const run = await deliverRound(ctx, receiver, events, events * ENDPOINTS_PER_ACCOUNT, (n) => accounts[n % accounts.length], 'webhook-origins');
      const peak = peakRssMb(dispatcher.pid);
      const after = residentNow(dispatcher.pid);
      ctx.log(
        `  ${run.units} deliveries to ${ORIGINS} origins at ${run.value.toFixed(0)}/s; dispatcher RSS before ${before.rssMb.toFixed(0)} MB (${before.fds} fds), peak ${peak.toFixed(0)} MB${peakReset ? '' : ' (VmHWM could not be reset: peak of the whole run)'}, after ${after.rssMb.toFixed(0)} MB (${after.fds} fds)`,
      );
      await checkDeliveryLedger(ctx, receiver, endpoints, 'webhook-origins');
      return [
        {
          scenario: 'webhook-origins',
          metric: `dispatcher peak RSS delivering to ${ORIGINS.toLocaleString('en-US')} HTTPS origins (${run.units.toLocaleString('en-US')} deliveries, ${EVENTS_PER_ACCOUNT} per endpoint)`,
          unit: 'MB',
          project: peak,
          baseline: null,
          ratio: null,
          target: TARGET,
          pass: peak <= TARGET_MB,
          status: 'measured',
          rounds: 1,
          note: `WEBHOOK_MAX_IDLE_SOCKETS ${ctx.config.webhookMaxIdleSockets}; RSS before ${before.rssMb.toFixed(0)} MB / ${before.fds} fds, after ${after.rssMb.toFixed(0)} MB / ${after.fds} fds; ${run.value.toFixed(0)} deliveries/s${peakReset ? '' : '; VmHWM not reset: peak of the whole run'}`,
        },
      ];
    } finally {
      await receiver.process.stop();
    }
  },
};

/** Resets VmHWM to the current RSS (Linux: `5` to /proc/<pid>/clear_refs); false where that is not allowed. */
function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
