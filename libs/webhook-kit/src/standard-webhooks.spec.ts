import { signStandardWebhook, standardWebhookKey, standardWebhookSignatureHeader, verifyStandardWebhook, verifyStandardWebhookRequest } from './standard-webhooks';

describe('Standard Webhooks signature', () => {
  // The format's published example (the reference libraries' README and tests): secret, message id,
  // timestamp, payload and the signature they must give.
  const vector = {
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestamp: '1614265330',
    payload: '{"test": 2432232314}',
    signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };

  it('gives the published test vector: v1, + base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the decoded whsec_ bytes', () => {
    expect(signStandardWebhook(vector.secret, vector.id, vector.timestamp, Buffer.from(vector.payload))).toBe(vector.signature);
    expect(signStandardWebhook(vector.secret, vector.id, vector.timestamp, vector.payload)).toBe(vector.signature);
    expect(standardWebhookKey(vector.secret)).toEqual(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
    const now = Number(vector.timestamp) * 1000;
    expect(verifyStandardWebhook({ secrets: [vector.secret], id: vector.id, timestamp: vector.timestamp, signature: vector.signature, rawBody: vector.payload, now })).toBe(true);
  });

  it('reads the base64url secrets issued before the format existed as their 32 bytes', () => {
    const bytes = Buffer.alloc(32, 0xfb); // base64url "-_-_…", base64 "+/+/…"
    const legacy = `whsec_${bytes.toString('base64url')}`;
    expect(legacy).toMatch(/[-_]/);
    expect(standardWebhookKey(legacy)).toEqual(bytes);
    expect(signStandardWebhook(legacy, 'e1', '1', '{}')).toBe(signStandardWebhook(`whsec_${bytes.toString('base64')}`, 'e1', '1', '{}'));
  });

  describe('verifyStandardWebhookRequest (receiver helper)', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const id = '0190e000-0000-7000-8000-000000000001';
    const body = Buffer.from(JSON.stringify({ id, type: 'alarm.created', created_at: '2026-01-01T00:00:00.000Z', data: {} }));
    const now = Date.parse('2026-01-01T00:00:10Z');
    const timestamp = String(Math.floor(now / 1000));
    const headers = (secrets: string[], overrides: Record<string, string> = {}) => ({
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': standardWebhookSignatureHeader(secrets, id, timestamp, body),
      ...overrides,
    });

    it('accepts any listed signature with any of the secrets, whatever the header case', () => {
      const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
      expect(verifyStandardWebhookRequest(headers([secret]), body, [secret], { now })).toEqual({ eventId: id });
      expect(verifyStandardWebhookRequest(headers([other, secret]), body, [secret], { now })).toEqual({ eventId: id });
      expect(verifyStandardWebhookRequest(headers([secret]), body, [other, secret], { now })).toEqual({ eventId: id });
      const upper = Object.fromEntries(Object.entries(headers([secret])).map(([k, v]) => [k.toUpperCase(), v]));
      expect(verifyStandardWebhookRequest(upper, body, [secret], { now })).not.toBeNull();
      // versions it does not know are skipped, not fatal
      expect(verifyStandardWebhookRequest(headers([secret], { 'webhook-signature': `v1a,abc ${signStandardWebhook(secret, id, timestamp, body)}` }), body, [secret], { now })).not.toBeNull();
    });

    it('rejects a wrong secret, a changed body, id or timestamp, a stale or future timestamp, and a wider tolerance', () => {
      const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
      expect(verifyStandardWebhookRequest(headers([secret]), body, [other], { now })).toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret]), Buffer.concat([body, Buffer.from('\n')]), [secret], { now })).toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret], { 'webhook-id': `${id}x` }), body, [secret], { now })).toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret], { 'webhook-timestamp': String(Number(timestamp) + 1) }), body, [secret], { now })).toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret]), body, [secret], { now: now + 301_000 })).toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret]), body, [secret], { now: now - 301_000 })).toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret]), body, [secret], { now: now + 300_000 })).not.toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret]), body, [secret], { now: now + 400_000, toleranceSeconds: 3600 })).toBeNull();
      expect(verifyStandardWebhookRequest(headers([secret], { 'webhook-signature': signStandardWebhook(secret, id, timestamp, body).replace('v1,', 'v2,') }), body, [secret], { now })).toBeNull();
      expect(verifyStandardWebhookRequest({}, body, [secret], { now })).toBeNull();
    });

    it('rejects a webhook-id that is not the body id, even when signed', () => {
      const otherId = '0190e000-0000-7000-8000-000000000002';
      const signed = { 'webhook-id': otherId, 'webhook-timestamp': timestamp, 'webhook-signature': standardWebhookSignatureHeader([secret], otherId, timestamp, body) };
      expect(verifyStandardWebhookRequest(signed, body, [secret], { now })).toBeNull();
    });
  });
});
