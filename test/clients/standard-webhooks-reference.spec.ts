import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signStandardWebhook, standardWebhookSignatureHeader } from '@app/webhook-kit';
import { generateSigningSecret } from '@app/webhooks';

/**
 * The service's Standard Webhooks signing (libs/webhook-kit, used by the dispatcher) against the
 * format's reference library for JavaScript (`standardwebhooks` on npm): what a receiver that
 * already uses it runs. The end-to-end proof with real deliveries is
 * test/e2e/webhook-standard-webhooks.e2e-spec.ts.
 */
describe('Standard Webhooks: the service signs as the reference library verifies', () => {
  it('one or two secrets (a rotation window), random secrets of any length and bodies', () => {
    for (let i = 0; i < 20; i += 1) {
      const current = `whsec_${randomBytes(32).toString('base64')}`;
      const previous = `whsec_${randomBytes(24 + i).toString('base64')}`;
      const id = `0190${randomBytes(6).toString('hex')}`;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const body = JSON.stringify({ id, type: 'alarm.created', data: { text: randomBytes(i * 7).toString('hex'), snow: '❄' } });
      expect(signStandardWebhook(current, id, timestamp, body)).toBe(new Webhook(current).sign(id, new Date(Number(timestamp) * 1000), body));
      const headers = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': standardWebhookSignatureHeader([current, previous], id, timestamp, Buffer.from(body)) };
      expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
      expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
      expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(body, headers)).toThrow('No matching signature');
    }
  });

  it('reads every signing secret the service issues as it is (whsec_ + standard base64 of 32 random bytes)', () => {
    for (let i = 0; i < 50; i += 1) {
      const secret = generateSigningSecret();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const timestamp = String(Math.floor(Date.now() / 1000));
      const headers = { 'webhook-id': 'e1', 'webhook-timestamp': timestamp, 'webhook-signature': signStandardWebhook(secret, 'e1', timestamp, '{"id":"e1"}') };
      expect(new Webhook(secret).verify('{"id":"e1"}', headers)).toEqual({ id: 'e1' });
    }
  });
});
