import { createHmac } from 'node:crypto';
import { signWebhook, verifyWebhook } from './signature';

describe('webhook signature v1', () => {
  const body = Buffer.from('{"id":"e1","type":"alarm.created","data":{"temperature":9.5}}');
  const now = 1_780_000_000_000;
  const ts = String(now / 1000);

  it('is v1= + hex HMAC-SHA256 of "{timestamp}.{raw body}"', () => {
    const expected = createHmac('sha256', 'whsec_x').update(`${ts}.${body.toString()}`).digest('hex');
    expect(signWebhook('whsec_x', ts, body)).toBe(`v1=${expected}`);
  });

  it('verifies within 300 s, with either secret during a rotation, and nothing else', () => {
    const signature = signWebhook('old', ts, body);
    expect(verifyWebhook({ secrets: ['new', 'old'], timestamp: ts, signature, rawBody: body, now })).toBe(true);
    expect(verifyWebhook({ secrets: ['new'], timestamp: ts, signature, rawBody: body, now })).toBe(false);
    expect(verifyWebhook({ secrets: ['old'], timestamp: ts, signature, rawBody: Buffer.from(`${body.toString()} `), now })).toBe(false);
    expect(verifyWebhook({ secrets: ['old'], timestamp: ts, signature, rawBody: body, now: now + 301_000 })).toBe(false);
    expect(verifyWebhook({ secrets: ['old'], timestamp: ts, signature, rawBody: body, now: now - 300_000 })).toBe(true);
    expect(verifyWebhook({ secrets: ['old'], timestamp: 'abc', signature, rawBody: body, now })).toBe(false);
    expect(verifyWebhook({ secrets: ['old'], timestamp: ts, signature: undefined, rawBody: body, now })).toBe(false);
  });
});
