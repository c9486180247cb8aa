import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { createDataSource } from '@app/database';
import type { AccountId } from '@app/vocabulary';
import { WebhookEndpointsService, type CreatedWebhookEndpoint } from '@app/webhooks';
import { AppProcess, freePort } from '../../support/app-process';
import { deleteEventTopology } from '../../support/broker';
import { TestDnsServer } from '../../support/dns-server';
import { generateTestCertificate, HttpsReceiver, type TestCertificate } from '../../support/https-receiver';
import { SilentReceiver } from '../../support/silent-receiver';
import { waitFor } from '../../support/wait';

/**
 * What the tenant-isolation suites (webhook-isolation, webhook-fairness) run the built dispatcher
 * among: an HTTPS receiver for the good tenant, receivers that never answer (`silentTcp`: no TLS
 * handshake; `silentTls`: no answer after it), a DNS server that answers `goodHost` and never
 * answers `deadHosts`, a CA file the dispatcher trusts, and the endpoint service. setUp() in
 * beforeAll, tearDown() in afterAll.
 */
export class HostileNeighbours {
  certificate!: TestCertificate;
  receiver!: HttpsReceiver;
  silentTcp!: SilentReceiver;
  silentTls!: SilentReceiver;
  dns!: TestDnsServer;
  dataSource!: DataSource;
  service!: WebhookEndpointsService;
  private caDir: string | null = null;
  private readonly children: AppProcess[] = [];

  constructor(
    /** AMQP_PREFIX of the dispatchers it starts (deleted at tear-down). */
    readonly prefix: string,
    private readonly hosts: { goodHost: string; deadHosts: string[] },
  ) {}

  async setUp(): Promise<void> {
    const { goodHost, deadHosts } = this.hosts;
    this.certificate = generateTestCertificate([goodHost, ...deadHosts]);
    this.caDir = mkdtempSync(join(tmpdir(), 'hostile-neighbours-'));
    writeFileSync(join(this.caDir, 'ca.pem'), this.certificate.cert);
    this.receiver = await HttpsReceiver.start(this.certificate);
    this.silentTcp = await SilentReceiver.start('tcp', this.certificate);
    this.silentTls = await SilentReceiver.start('tls', this.certificate);
    this.dns = await TestDnsServer.start({ answers: { [goodHost]: ['127.0.0.1'] }, silent: deadHosts });
    this.dataSource = createDataSource(process.env.DATABASE_URL as string, 4);
    await this.dataSource.initialize();
    this.service = new WebhookEndpointsService(this.dataSource, { secretsKey: loadConfig().secretsKey, allowPrivateTargets: true });
  }

  async tearDown(): Promise<void> {
    for (const child of this.children) await child.kill('SIGKILL');
    await this.silentTcp?.close();
    await this.silentTls?.close();
    await this.receiver?.close();
    await this.dns?.close();
    await deleteEventTopology(this.prefix).catch(() => undefined);
    await this.dataSource?.destroy();
    if (this.caDir) rmSync(this.caDir, { recursive: true, force: true });
  }

  /** The built dispatcher, trusting the test CA and resolving through the test DNS, retrying every second; ready. */
  async startDispatcher(env: NodeJS.ProcessEnv): Promise<AppProcess> {
    const port = await freePort();
    const child = AppProcess.spawn('dispatcher', 'dispatcher', port, {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      AMQP_PREFIX: this.prefix,
      DISPATCHER_PORT: String(port),
      NODE_EXTRA_CA_CERTS: join(this.caDir as string, 'ca.pem'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_DNS_SERVERS: this.dns.address,
      WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      INGEST_CONSUMER: 'off',
      ...env,
    });
    this.children.push(child);
    await waitFor('the dispatcher to be ready', async () => (await child.status('/health/ready')) === 200 || !child.running, 30_000);
    if (!child.running) throw new Error(`the dispatcher exited at start\n${child.output()}`);
    return child;
  }

  async endpoints(accountId: AccountId, urls: string[]): Promise<CreatedWebhookEndpoint[]> {
    const created: CreatedWebhookEndpoint[] = [];
    for (const url of urls) created.push(await this.service.create(accountId, { url, events: ['alarm.created'] }));
    return created;
  }
}
