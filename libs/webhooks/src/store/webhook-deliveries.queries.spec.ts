import { WEBHOOK_DELIVERY_QUERIES } from './webhook-deliveries.queries';

describe('webhook statements', () => {
  it('count every attempt they log in the hourly delivery health rollup (the panel charts read only it)', () => {
    const logging = Object.entries(WEBHOOK_DELIVERY_QUERIES).filter(([, query]) => /INSERT INTO webhook_attempts\b/.test(query.text));
    expect(logging.length).toBeGreaterThan(0);
    for (const [name, query] of logging) {
      expect({ name, rollup: /INSERT INTO webhook_endpoint_hourly_stats\b[\s\S]*FROM attempt\b/.test(query.text) }).toEqual({ name, rollup: true });
    }
  });
});
