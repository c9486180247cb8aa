import { WebhookSender } from '../../apps/dispatcher/src/delivery/webhook-sender';
import { generateTestCertificate, HttpsReceiver, type TestCertificate } from '../support/https-receiver';

describe('connect-time SSRF guard (DNS rebinding)', () => {
  let certificate: TestCertificate;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    certificate = generateTestCertificate();
    receiver = await HttpsReceiver.start(certificate);
  });
  afterAll(() => receiver.close());

  const sender = (allowPrivateTargets: boolean) =>
    new WebhookSender({
      timeoutMs: 2000,
      allowPrivateTargets,
      maxSocketsPerOrigin: 2,
      ca: certificate.cert,
      // "rebind.example" now answers with loopback, as a rebinding attacker's DNS would.
      resolve: async (hostname) => {
        if (hostname === 'rebind.example' || hostname === 'localhost') return ['127.0.0.1'];
        throw Object.assign(new Error('DNS lookup found no address'), { code: 'ENOTFOUND' });
      },
    });

  const webhook = (url: string) => ({ url, secret: 'whsec_test', eventType: 'alarm.created', eventId: '018f0000-0000-7000-8000-000000000001', body: Buffer.from('{}') });

  it.each([
    ['a name that now resolves to loopback', 'rebind.example'],
    ['localhost', 'localhost'],
    ['an IPv4 loopback literal', '127.0.0.1'],
    ['an IPv6 loopback literal', '[::1]'],
  ])('refuses %s when private targets are not allowed, without sending anything', async (_label, host) => {
    const guarded = sender(false);
    try {
      const result = await guarded.send(webhook(`https://${host}:${receiver.port}/ssrf`));
      expect(result).toMatchObject({ outcome: 'failed', statusCode: null });
      expect(result.error).toMatch(/^target refused: /);
    } finally {
      guarded.close();
    }
    expect(receiver.received('/ssrf')).toHaveLength(0);
  });

  it('refuses a metadata address literal', async () => {
    const guarded = sender(false);
    try {
      const result = await guarded.send(webhook('https://169.254.169.254/latest/meta-data/'));
      expect(result.error).toMatch(/^target refused: 169\.254\.169\.254/);
    } finally {
      guarded.close();
    }
  });

  it('connects when private targets are allowed (tests, on-premise)', async () => {
    const open = sender(true);
    try {
      const result = await open.send(webhook(receiver.url('/ssrf-allowed')));
      expect(result).toMatchObject({ outcome: 'succeeded', statusCode: 200, error: null });
    } finally {
      open.close();
    }
    expect(receiver.received('/ssrf-allowed')).toHaveLength(1);
  });

  it('tells a timeout of the endpoint from a wait for a local connection slot (deferred: not the endpoint\'s failure)', async () => {
    receiver.script('/slot-hang', [], { status: 200, hang: true });
    // One socket for the origin: the second request waits for the first inside this process.
    const narrow = new WebhookSender({ timeoutMs: 600, slotWaitMs: 150, allowPrivateTargets: true, maxSocketsPerOrigin: 1, ca: certificate.cert });
    try {
      const [first, second] = await Promise.all([narrow.send(webhook(receiver.url('/slot-hang'))), narrow.send(webhook(receiver.url('/slot-hang')))]);
      expect(first).toMatchObject({ outcome: 'retry', statusCode: null, error: 'timeout after 600 ms' });
      expect(second).toMatchObject({ outcome: 'deferred', statusCode: null, error: 'waited too long for a local connection slot' });
      expect(second.durationMs).toBeLessThan(first.durationMs);
    } finally {
      narrow.close();
    }
    expect(receiver.received('/slot-hang')).toHaveLength(1);
  });
});
