/**
 * Who gets the next free delivery slot of a dispatcher process. Slots are shared fairly in slot
 * time (a deficit round robin whose cost is the time an attempt holds its slot) among the accounts
 * that have deliveries waiting: the account that used the least slot time lately — its finished
 * attempts, decayed by half every USAGE_HALF_LIFE_MS, plus the time its attempts in flight have
 * held so far — goes first; among equals the one with fewer attempts in flight, then the one served
 * longest ago. So a few accounts whose receivers stall cannot hold every slot while others wait,
 * and a tenant whose attempts are quick gets a freed slot before the one that will hold it for
 * seconds. The last free slot is kept for an
 * account with nothing in flight whose attempts are quick: a tenant whose deliveries just became due
 * starts at once, however busy the others are, without waiting for a stalled peer's attempt to end.
 * An account whose attempt held a slot longer than SLOW_ATTEMPT_MS within the last SLOW_MEMORY_MS
 * (a receiver that does not answer, DNS that does not resolve) still gets its fair share, but not
 * that last slot: it would hold it for seconds, and a stalled tenant's deliveries come due again
 * and again with nothing in flight. The bounds per account and per endpoint
 * (WEBHOOK_CONCURRENCY_PER_ACCOUNT, _PER_ENDPOINT) still cap each one.
 */

/** Free slots kept for accounts with nothing in flight. */
export const SLOTS_KEPT_FOR_IDLE_ACCOUNTS = 1;
/** An attempt that held its slot longer than this makes its account slow... */
export const SLOW_ATTEMPT_MS = 1000;
/** ...for this long. */
export const SLOW_MEMORY_MS = 60_000;

export interface SlotState {
  concurrency: number;
  perEndpoint: number;
  perAccount: number;
  inFlight: number;
  /** Attempts in flight per endpoint. */
  busyEndpoints: ReadonlyMap<string, number>;
  /** Attempts in flight per account. */
  busyAccounts: ReadonlyMap<string, number>;
  /** Attempts this process may have in flight for the endpoint (its grant, webhook_slot_grants); absent: `perEndpoint`. */
  endpointBound?(endpointId: string): number;
  /** Likewise per account; absent: `perAccount`. */
  accountBound?(accountId: string): number;
  /** When each account last got a slot (a counter; absent: not recently). */
  lastServed: ReadonlyMap<string, number>;
  /** Slot milliseconds the account used lately, its attempts in flight included. */
  used(accountId: string): number;
  /** Accounts with a slow attempt lately (SLOW_ATTEMPT_MS, SLOW_MEMORY_MS): not given the kept slot. */
  isSlow(accountId: string): boolean;
}

/**
 * The endpoint whose first waiting delivery takes the next slot, or null when none may start now.
 * `waiting` holds, per endpoint, its claimed deliveries in order (an endpoint has one account).
 */
export function nextEndpointToLaunch(waiting: ReadonlyMap<string, ReadonlyArray<{ account_id: string }>>, state: SlotState): string | null {
  const free = state.concurrency - state.inFlight;
  if (free <= 0) return null;
  let best: { endpointId: string; used: number; running: number; served: number } | null = null;
  for (const [endpointId, queue] of waiting) {
    if (queue.length === 0 || (state.busyEndpoints.get(endpointId) ?? 0) >= (state.endpointBound?.(endpointId) ?? state.perEndpoint)) continue;
    const accountId = queue[0].account_id;
    const running = state.busyAccounts.get(accountId) ?? 0;
    if (running >= (state.accountBound?.(accountId) ?? state.perAccount)) continue;
    if (free <= SLOTS_KEPT_FOR_IDLE_ACCOUNTS && (running > 0 || state.isSlow(accountId))) continue;
    const served = state.lastServed.get(accountId) ?? 0;
    const used = state.used(accountId);
    if (!best || used < best.used || (used === best.used && (running < best.running || (running === best.running && served < best.served)))) {
      best = { endpointId, used, running, served };
    }
  }
  return best?.endpointId ?? null;
}

/** Slot time an account used is forgotten by half every this long. */
export const USAGE_HALF_LIFE_MS = 10_000;

/**
 * What each account's attempts cost in slot time lately (exponentially decayed), and whether one
 * of them was slow (SLOW_ATTEMPT_MS, within SLOW_MEMORY_MS). Bounded: the entries noted longest
 * ago go first.
 */
export class SlotUsage {
  private readonly entries = new Map<string, { used: number; at: number; slowAt: number }>();

  constructor(private readonly maxEntries = 10_000) {}

  /** An attempt of `accountId` held its slot `heldMs`. */
  note(accountId: string, heldMs: number, now = Date.now()): void {
    const entry = this.entries.get(accountId);
    const used = (entry ? decayed(entry.used, now - entry.at) : 0) + heldMs;
    const slowAt = heldMs > SLOW_ATTEMPT_MS ? now : (entry?.slowAt ?? -Infinity);
    this.entries.delete(accountId); // re-inserted last: the map stays in the order of the last note
    this.entries.set(accountId, { used, at: now, slowAt });
    for (const [oldest, { at }] of this.entries) {
      if (this.entries.size <= this.maxEntries && at > now - SLOW_MEMORY_MS) break;
      this.entries.delete(oldest);
    }
  }

  /** Slot milliseconds used lately (finished attempts only). */
  used(accountId: string, now = Date.now()): number {
    const entry = this.entries.get(accountId);
    return entry ? decayed(entry.used, now - entry.at) : 0;
  }

  isSlow(accountId: string, now = Date.now()): boolean {
    const entry = this.entries.get(accountId);
    return entry !== undefined && entry.slowAt > now - SLOW_MEMORY_MS;
  }
}

function decayed(value: number, elapsedMs: number): number {
  return value * 2 ** (-Math.max(0, elapsedMs) / USAGE_HALF_LIFE_MS);
}
