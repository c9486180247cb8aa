import { signWebhook } from './signature';
import { verifyWebhookRequest } from './verify-request';

describe('verifyWebhookRequest (receiver helper)', () => {
  const body = Buffer.from('{"id":"e1","type":"alarm.created","created_at":"2026-01-01T00:00:00.000Z","data":{}}');
  const now = Date.parse('2026-01-01T00:00:10Z');
  const timestamp = String(Math.floor(now / 1000));
  const headers = (secret: string, overrides: Record<string, string> = {}) => ({
    'x-service-event': 'alarm.created',
    'x-service-event-id': 'e1',
    'x-service-delivery-id': 'd1',
    'x-service-timestamp': timestamp,
    'x-service-signature': signWebhook(secret, timestamp, body),
    ...overrides,
  });

  it('accepts a valid request with any of the secrets and returns the ids to de-duplicate on', () => {
    expect(verifyWebhookRequest(headers('whsec_new'), body, ['whsec_old', 'whsec_new'], { now })).toEqual({ eventId: 'e1', eventType: 'alarm.created', deliveryId: 'd1' });
  });

  it('finds headers whatever their case', () => {
    const mixed = Object.fromEntries(Object.entries(headers('s')).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhookRequest(mixed, body, ['s'], { now })).not.toBeNull();
  });

  it('rejects a wrong secret, a changed body, a stale timestamp, and missing headers', () => {
    expect(verifyWebhookRequest(headers('s'), body, ['other'], { now })).toBeNull();
    expect(verifyWebhookRequest(headers('s'), Buffer.concat([body, Buffer.from('\n')]), ['s'], { now })).toBeNull();
    expect(verifyWebhookRequest(headers('s'), body, ['s'], { now: now + 301_000 })).toBeNull();
    expect(verifyWebhookRequest(headers('s'), body, ['s'], { now: now - 301_000 })).toBeNull();
    expect(verifyWebhookRequest({ ...headers('s'), 'x-service-event-id': '' }, body, ['s'], { now })).toBeNull();
    expect(verifyWebhookRequest({}, body, ['s'], { now })).toBeNull();
  });
});
