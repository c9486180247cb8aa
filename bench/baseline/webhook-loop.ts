import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { signWebhook } from '@app/webhook-kit';

/**
 * The webhook baseline, as its own process: the same signed POSTs the dispatcher sends (spec
 * §6.3–6.4 headers, fresh timestamp and signature per attempt), to the same endpoints, at the
 * same concurrency (per endpoint), over keep-alive connections — with no queue, no database and
 * no attempt log. Job on stdin; prints {ms, cpuSeconds, delivered} as JSON.
 */
interface LoopJob {
  endpoints: Array<{ url: string; secret: string }>;
  bodies: string[];
  eventType: string;
  perEndpoint: number;
}

function post(agent: Agent, url: string, secret: string, eventType: string, body: Buffer, eventId: string): Promise<number> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': String(body.length),
          'User-Agent': 'Service-Webhooks/1.0',
          'X-Service-Event': eventType,
          'X-Service-Event-ID': eventId,
          'X-Service-Delivery-ID': randomUUID(),
          'X-Service-Timestamp': timestamp,
          'X-Service-Signature': signWebhook(secret, timestamp, body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  const job = JSON.parse(readFileSync(0, 'utf8')) as LoopJob;
  const events = job.bodies.map((text) => ({ body: Buffer.from(text), id: (JSON.parse(text) as { id: string }).id }));
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let delivered = 0;
  await Promise.all(
    job.endpoints.map(async (endpoint) => {
      // The receiver's CA comes from NODE_EXTRA_CA_CERTS, as for the dispatcher: a `ca` option would
      // become part of the agent's pool key, rebuilt from every certificate on every request.
      const agent = new Agent({ keepAlive: true, maxSockets: job.perEndpoint, maxFreeSockets: job.perEndpoint, scheduling: 'lifo' });
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < events.length) {
          const event = events[next++];
          const status = await post(agent, endpoint.url, endpoint.secret, job.eventType, event.body, event.id);
          if (status < 200 || status >= 300) throw new Error(`receiver answered ${status}`);
          delivered++;
        }
      };
      await Promise.all(Array.from({ length: job.perEndpoint }, worker));
      agent.destroy();
    }),
  );
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  process.stdout.write(`${JSON.stringify({ ms, cpuSeconds: (cpu.user + cpu.system) / 1e6, delivered })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline webhook loop: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
