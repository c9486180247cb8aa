import { nextEndpointToLaunch, SLOW_ATTEMPT_MS, SLOW_MEMORY_MS, SlotUsage, USAGE_HALF_LIFE_MS, type SlotState } from './fair-share';

/** Endpoint id → its waiting deliveries; endpoint `a1` belongs to account `a`. */
function waiting(...endpoints: Array<[string, number]>): Map<string, Array<{ account_id: string }>> {
  return new Map(endpoints.map(([endpointId, count]) => [endpointId, Array.from({ length: count }, () => ({ account_id: endpointId[0] }))]));
}

function state(overrides: Partial<SlotState> = {}): SlotState {
  return { concurrency: 16, perEndpoint: 4, perAccount: 4, inFlight: 0, busyEndpoints: new Map(), busyAccounts: new Map(), lastServed: new Map(), used: () => 0, isSlow: () => false, ...overrides };
}

/** Fills slots one at a time as the worker does, and returns the accounts in launch order. */
function launchAll(held: Map<string, Array<{ account_id: string }>>, initial: SlotState): string[] {
  const busyEndpoints = new Map(initial.busyEndpoints);
  const busyAccounts = new Map(initial.busyAccounts);
  const lastServed = new Map(initial.lastServed);
  let inFlight = initial.inFlight;
  const order: string[] = [];
  for (let turn = 1; ; turn++) {
    const endpointId = nextEndpointToLaunch(held, { ...initial, inFlight, busyEndpoints, busyAccounts, lastServed });
    if (endpointId === null) return order;
    const [delivery] = held.get(endpointId)!.splice(0, 1);
    inFlight += 1;
    busyEndpoints.set(endpointId, (busyEndpoints.get(endpointId) ?? 0) + 1);
    busyAccounts.set(delivery.account_id, (busyAccounts.get(delivery.account_id) ?? 0) + 1);
    lastServed.set(delivery.account_id, turn);
    order.push(delivery.account_id);
  }
}

describe('fair share of delivery slots', () => {
  it('goes round the accounts with waiting deliveries instead of serving the first one up to its cap', () => {
    const order = launchAll(waiting(['a1', 10], ['b1', 10], ['c1', 10]), state({ concurrency: 7 }));
    expect(order.slice(0, 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    // The seventh slot is kept for an account with nothing in flight: none of these may take it.
    expect(order).toHaveLength(6);
  });

  it('keeps the last free slot for an account with nothing in flight, and gives it to one at once', () => {
    const busy = { inFlight: 15, busyAccounts: new Map([['a', 8], ['b', 7]]), perAccount: 16 };
    expect(nextEndpointToLaunch(waiting(['a1', 5], ['b1', 5]), state(busy))).toBeNull();
    expect(nextEndpointToLaunch(waiting(['a1', 5], ['b1', 5], ['g1', 1]), state(busy))).toBe('g1');
    // With more than one slot free, an account already sending may take one.
    expect(nextEndpointToLaunch(waiting(['a1', 5], ['b1', 5]), state({ ...busy, inFlight: 14 }))).toBe('b1');
  });

  it('does not give the kept slot to an account whose attempts stalled lately, but still its share of the others', () => {
    const busy = { inFlight: 15, busyAccounts: new Map([['a', 8], ['b', 7]]), perAccount: 16, isSlow: (accountId: string) => accountId === 's' };
    expect(nextEndpointToLaunch(waiting(['s1', 5]), state(busy))).toBeNull();
    expect(nextEndpointToLaunch(waiting(['s1', 5], ['g1', 1]), state(busy))).toBe('g1');
    expect(nextEndpointToLaunch(waiting(['s1', 5], ['a1', 1]), state({ ...busy, inFlight: 14 }))).toBe('s1');
  });

  it('gives a freed slot to the account that used the least slot time lately', () => {
    const used = new Map([['a', 9000], ['b', 300], ['c', 4000]]);
    const s = state({ inFlight: 5, busyAccounts: new Map([['a', 1], ['b', 3], ['c', 1]]), used: (accountId) => used.get(accountId) ?? 0 });
    expect(nextEndpointToLaunch(waiting(['a1', 1], ['b1', 1], ['c1', 1]), s)).toBe('b1');
  });

  it('counts slot time decayed by half every USAGE_HALF_LIFE_MS, remembers a slow attempt for a minute, and forgets the oldest first beyond its size', () => {
    const usage = new SlotUsage(2);
    usage.note('quick', SLOW_ATTEMPT_MS, 0);
    usage.note('quick', 200, 0);
    expect(usage.used('quick', 0)).toBe(SLOW_ATTEMPT_MS + 200);
    expect(usage.used('quick', USAGE_HALF_LIFE_MS)).toBeCloseTo((SLOW_ATTEMPT_MS + 200) / 2);
    expect(usage.isSlow('quick', 1)).toBe(false);
    usage.note('a', SLOW_ATTEMPT_MS + 1, 0);
    expect(usage.isSlow('a', SLOW_MEMORY_MS - 1)).toBe(true);
    expect(usage.isSlow('a', SLOW_MEMORY_MS)).toBe(false);
    usage.note('b', 5000, 10); // three accounts in a map of two: 'quick', noted first, goes
    expect([usage.used('quick', 10), usage.isSlow('a', 10), usage.isSlow('b', 10)]).toEqual([0, true, true]);
  });

  it('prefers the account with fewer attempts in flight, then the one served longest ago', () => {
    const s = state({ inFlight: 3, busyAccounts: new Map([['a', 2], ['b', 1]]), lastServed: new Map([['b', 9], ['c', 4]]) });
    expect(nextEndpointToLaunch(waiting(['a1', 1], ['b1', 1]), s)).toBe('b1');
    expect(nextEndpointToLaunch(waiting(['a1', 1], ['b1', 1], ['c1', 1]), s)).toBe('c1'); // none in flight
    expect(nextEndpointToLaunch(waiting(['b1', 1], ['d1', 1]), { ...s, busyAccounts: new Map([['b', 1], ['d', 1]]) })).toBe('d1'); // never served
  });

  it('still honours the caps per account and per endpoint, and the slot count', () => {
    expect(nextEndpointToLaunch(waiting(['a1', 3]), state({ inFlight: 4, busyAccounts: new Map([['a', 4]]) }))).toBeNull();
    expect(nextEndpointToLaunch(waiting(['a1', 3], ['a2', 1]), state({ inFlight: 4, busyAccounts: new Map([['a', 2]]), busyEndpoints: new Map([['a1', 4]]), perAccount: 8 }))).toBe('a2');
    expect(nextEndpointToLaunch(waiting(['a1', 3]), state({ inFlight: 16 }))).toBeNull();
    // One slot in all: the one account may use it.
    expect(nextEndpointToLaunch(waiting(['a1', 3]), state({ concurrency: 1 }))).toBe('a1');
  });
});
