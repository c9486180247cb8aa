import { describeLedger, ledgerDifferences, receiverKey, type EndpointAccount } from '../../bench/harness/ledger';

const account = (over: Partial<EndpointAccount> = {}): EndpointAccount => ({
  endpoint: 'https://127.0.0.1:4000/hooks',
  committed: 10,
  delivered: 7,
  failed: 1,
  cancelled: 1,
  pending: 1,
  received: 7,
  ...over,
});

describe('the delivery ledger', () => {
  it('balances when every committed event is delivered, failed, cancelled or pending, and the receiver saw each delivered one', () => {
    expect(ledgerDifferences([account(), account({ endpoint: 'https://127.0.0.1:4001/hooks', committed: 0, delivered: 0, failed: 0, cancelled: 0, pending: 0, received: 0 })])).toEqual([]);
  });

  it('names the endpoint and the gap when a delivery is missing, or one too many', () => {
    expect(ledgerDifferences([account({ delivered: 6, received: 6 })])).toEqual([
      'endpoint https://127.0.0.1:4000/hooks: 10 events committed ≠ 6 delivered + 1 failed + 1 cancelled + 1 pending (1 missing)',
    ]);
    expect(ledgerDifferences([account({ pending: 3 })])[0]).toMatch(/\(2 too many\)$/);
  });

  it('fails when the receiver and the database disagree on what was delivered', () => {
    expect(ledgerDifferences([account({ received: 6 })])).toEqual(['endpoint https://127.0.0.1:4000/hooks: the receiver logged 6 events, the database says 7 delivered (-1)']);
    expect(ledgerDifferences([account({ received: 8 })])[0]).toMatch(/\(\+1\)$/);
  });

  it('sums the endpoints for the log line', () => {
    expect(describeLedger([account(), account()])).toBe('2 endpoints: 20 owed (events × subscribed endpoints) = 14 delivered + 2 failed + 2 cancelled + 2 pending; receiver logged 14');
  });

  it('keys an endpoint as the receiver logs it: host, port and path', () => {
    expect(receiverKey('https://127.0.0.1:4000/hooks/3')).toBe('127.0.0.1:4000/hooks/3');
  });
});
