/** Where a claim may have left due deliveries behind (DeliveryWorker claims again after a response only there). */
export interface LeftBehind {
  all: boolean;
  endpoints: ReadonlySet<string>;
  accounts: ReadonlySet<string>;
}

/**
 * What a claim may have left due: the keys it stopped at their hold (what the process held of them
 * when it asked, plus what it got, reached the hold), and everything if it took all it was allowed
 * (`full`). Below its hold, a key got every delivery of it that was due. Counted from what the claim
 * was told, not from what is in hand when it answers: responses that came in meanwhile do not
 * change what it could take.
 */
export function leftBehindBy(
  claimed: ReadonlyArray<{ endpoint_id: string; account_id: string }>,
  full: boolean,
  inHand: { endpoints: ReadonlyMap<string, number>; accounts: ReadonlyMap<string, number> },
  holdPerEndpoint: number,
  holdPerAccount: number,
): LeftBehind {
  const endpoints = new Map(inHand.endpoints);
  const accounts = new Map(inHand.accounts);
  for (const delivery of claimed) {
    endpoints.set(delivery.endpoint_id, (endpoints.get(delivery.endpoint_id) ?? 0) + 1);
    accounts.set(delivery.account_id, (accounts.get(delivery.account_id) ?? 0) + 1);
  }
  return {
    all: full,
    endpoints: new Set([...endpoints].filter(([, count]) => count >= holdPerEndpoint).map(([key]) => key)),
    accounts: new Set([...accounts].filter(([, count]) => count >= holdPerAccount).map(([key]) => key)),
  };
}

/** Where either of two claims (windows of one pump's round) may have left due deliveries behind. */
export function mergeLeftBehind(a: LeftBehind, b: LeftBehind): LeftBehind {
  return { all: a.all || b.all, endpoints: new Set([...a.endpoints, ...b.endpoints]), accounts: new Set([...a.accounts, ...b.accounts]) };
}
