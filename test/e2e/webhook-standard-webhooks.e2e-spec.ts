import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { DataSource } from 'typeorm';
import { verifyStandardWebhookRequest, verifyWebhookRequest } from '@app/webhook-kit';
import type { CreatedWebhookEndpoint, WebhookEndpointsService } from '@app/webhooks';
import { createAccount } from '../support/fixtures';
import type { HttpsReceiver, ReceivedWebhook } from '../support/https-receiver';
import { waitFor } from '../support/wait';
import { WebhookDispatcherHarness } from './support/webhook-dispatcher-harness';
import { verifyStandardWebhook } from '../../clients/node/src/index';

/** The spec's request headers (§6.3), as Node presents them, and the transport's own. */
const SPEC_HEADERS = ['content-type', 'content-length', 'user-agent', 'x-service-event', 'x-service-event-id', 'x-service-delivery-id', 'x-service-timestamp', 'x-service-signature'];
const TRANSPORT_HEADERS = ['host', 'connection'];
const STANDARD_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
const ONE_SIGNATURE = /^v1,[A-Za-z0-9+/]{43}=$/;
const TWO_SIGNATURES = /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/;

/** What a receiver using the format's reference library (`standardwebhooks` on npm) runs: the parsed body, or the library's error. */
function referenceVerify(received: ReceivedWebhook, secret: string): unknown {
  return new Webhook(secret).verify(received.rawBody, received.headers as Record<string, string>);
}

/**
 * Standard Webhooks (issue 29): an endpoint may opt in to the format; the real dispatcher then
 * sends the webhook-* headers beside the spec's, and a receiver verifies them with the reference
 * library, during a secret rotation window with either secret. A default endpoint's request is
 * the spec's, header for header.
 */
describe('webhook dispatcher: Standard Webhooks signature format', () => {
  const harness = new WebhookDispatcherHarness();
  const { publish, settled, deliveries } = harness;
  let receiver: HttpsReceiver;
  let dataSource: DataSource;
  let service: WebhookEndpointsService;

  beforeAll(async () => {
    await harness.setUp();
    ({ receiver, dataSource, service } = harness);
  });
  afterEach(() => harness.restoreDispatcher());
  afterAll(() => harness.tearDown());

  const endpoint = async (path: string, signatureFormat?: string): Promise<CreatedWebhookEndpoint> =>
    service.create(await createAccount(dataSource, `Standard ${path}`), { url: receiver.url(path), events: ['alarm.created'], signature_format: signatureFormat });

  const headerNames = (received: ReceivedWebhook): string[] => Object.keys(received.headers).filter((name) => !TRANSPORT_HEADERS.includes(name)).sort();

  it('an opted-in endpoint gets both header sets; the delivery verifies with the reference library and with the spec scheme, one secret', async () => {
    const hook = await endpoint('/standard', 'standard-webhooks');
    expect(hook).toMatchObject({ signature_format: 'standard-webhooks', previous_secret_expires_at: null });
    const envelope = await publish(hook.account_id, 'alarm.created', { id: 'alarm-7', severity: 'CRITICAL' });
    expect((await settled(hook.id, envelope.id)).status).toBe('succeeded');

    const [received] = receiver.received('/standard');
    expect(headerNames(received)).toEqual([...SPEC_HEADERS, ...STANDARD_HEADERS].sort());
    expect(received.headers['webhook-id']).toBe(envelope.id);
    expect(received.headers['webhook-timestamp']).toBe(received.headers['x-service-timestamp']);
    expect(received.headers['webhook-signature']).toMatch(ONE_SIGNATURE);

    expect(referenceVerify(received, hook.signing_secret)).toEqual(envelope);
    // The Node.js client's helper and the receiver kit agree on the real delivery.
    expect(verifyStandardWebhook(received.rawBody, received.headers, hook.signing_secret)).toEqual(envelope);
    expect(verifyStandardWebhookRequest(received.headers, received.rawBody, [hook.signing_secret])).toEqual({ eventId: envelope.id });
    // The same secret, read as the spec says, verifies the X-Service-* headers: switching is safe.
    expect(verifyWebhookRequest(received.headers, received.rawBody, [hook.signing_secret])).toMatchObject({ eventId: envelope.id });
    expect(() => referenceVerify({ ...received, rawBody: Buffer.concat([received.rawBody, Buffer.from(' ')]) }, hook.signing_secret)).toThrow(WebhookVerificationError);
    const other = await endpoint('/standard-other', 'standard-webhooks');
    expect(() => referenceVerify(received, other.signing_secret)).toThrow('No matching signature');
  });

  it('signs with both secrets during a rotation window: each verifies with the reference library; the X-Service signature stays the new one only', async () => {
    const hook = await endpoint('/standard-rotation', 'standard-webhooks');
    const newSecret = harness.rotateBeforeRetry(hook, '/standard-rotation');
    const envelope = await publish(hook.account_id);
    expect((await settled(hook.id, envelope.id)).status).toBe('succeeded');
    const rotated = newSecret();
    const [before, after] = receiver.received('/standard-rotation');

    expect(before.headers['webhook-signature']).toMatch(ONE_SIGNATURE);
    expect(after.headers['webhook-signature']).toMatch(TWO_SIGNATURES);
    // The message id is the event id: the same on the retry (receivers de-duplicate on it).
    expect(after.headers['webhook-id']).toBe(before.headers['webhook-id']);
    expect(referenceVerify(after, rotated)).toEqual(envelope);
    expect(referenceVerify(after, hook.signing_secret)).toEqual(envelope);
    expect(verifyStandardWebhook(after.rawBody, after.headers, hook.signing_secret).id).toBe(envelope.id);
    // Spec §6.5 unchanged: the new secret is in force for X-Service-Signature at once.
    expect(after.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(verifyWebhookRequest(after.headers, after.rawBody, [rotated])).not.toBeNull();
    expect(verifyWebhookRequest(after.headers, after.rawBody, [hook.signing_secret])).toBeNull();

    const view = await service.get(hook.account_id, hook.id);
    const windowEnd = Date.parse(view.previous_secret_expires_at ?? '');
    expect(windowEnd - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect(windowEnd - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    // When the window is over the old secret signs nothing any more.
    await dataSource.query(`UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [hook.id]);
    expect((await service.get(hook.account_id, hook.id)).previous_secret_expires_at).toBeNull();
    const later = await publish(hook.account_id);
    await settled(hook.id, later.id);
    const last = receiver.received('/standard-rotation').at(-1) as ReceivedWebhook;
    expect(last.headers['webhook-id']).toBe(later.id);
    expect(last.headers['webhook-signature']).toMatch(ONE_SIGNATURE);
    expect(referenceVerify(last, rotated)).toEqual(later);
    expect(() => referenceVerify(last, hook.signing_secret)).toThrow('No matching signature');
  });

  it('a default endpoint gets exactly the spec headers, during a rotation window too', async () => {
    const hook = await endpoint('/default');
    expect(hook.signature_format).toBe('service-v1');
    const first = await publish(hook.account_id);
    await settled(hook.id, first.id);
    const rotated = (await service.rotateSecret(hook.account_id, hook.id)).signing_secret;
    const second = await publish(hook.account_id);
    await settled(hook.id, second.id);

    for (const received of receiver.received('/default')) {
      expect(headerNames(received)).toEqual([...SPEC_HEADERS].sort());
      expect(received.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    }
    const [, after] = receiver.received('/default');
    expect(verifyWebhookRequest(after.headers, after.rawBody, [rotated])).toMatchObject({ eventId: second.id });
  });

  it('switching an endpoint to the format and back keeps its secret; the next delivery follows the switch', async () => {
    const hook = await endpoint('/switch');
    expect((await service.update(hook.account_id, hook.id, { signature_format: 'standard-webhooks' })).signature_format).toBe('standard-webhooks');
    const switched = await publish(hook.account_id);
    await settled(hook.id, switched.id);
    expect(referenceVerify(receiver.received('/switch')[0], hook.signing_secret)).toEqual(switched);

    await service.update(hook.account_id, hook.id, { signature_format: 'service-v1' });
    const back = await publish(hook.account_id);
    await waitFor('the delivery after switching back', async () => (await deliveries(hook.id)).find((d) => d.event_id === back.id && d.status === 'succeeded'));
    const last = receiver.received('/switch').at(-1) as ReceivedWebhook;
    expect(headerNames(last)).toEqual([...SPEC_HEADERS].sort());
    expect(verifyWebhookRequest(last.headers, last.rawBody, [hook.signing_secret])).toMatchObject({ eventId: back.id });

    await expect(service.update(hook.account_id, hook.id, { signature_format: 'svix' })).rejects.toThrow('signature_format: one of service-v1, standard-webhooks');
    await expect(service.create(hook.account_id, { url: receiver.url('/switch-bad'), events: ['alarm.created'], signature_format: 'v2' })).rejects.toThrow('signature_format');
  });
});
