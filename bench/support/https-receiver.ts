import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The loopback HTTPS webhook receiver, run as a child process (IPC): one server per endpoint,
 * each answering 204 after reading the body. Counts deliveries and, for the latency scenario,
 * records when each event id first arrived (epoch milliseconds, sub-millisecond precision).
 */
export type ReceiverCommand = { type: 'count' } | { type: 'reset' } | { type: 'receipts' } | { type: 'take' } | { type: 'tally' };
export type ReceiverReply =
  | { type: 'ready'; ports: number[] }
  | { type: 'count'; total: number }
  | { type: 'reset' }
  | { type: 'receipts'; entries: Array<[string, number]> }
  /** First receipts since the last 'take' (the soak run's latency samples, without resending everything). */
  | { type: 'take'; entries: Array<[string, number]>; total: number }
  /** Deliveries per event id (the soak run's missing/duplicate check). */
  | { type: 'tally'; entries: Array<[string, number]> };

const epochNow = (): number => performance.timeOrigin + performance.now();

function main(): void {
  const [keyFile, certFile, countText] = process.argv.slice(2);
  const options = { key: readFileSync(keyFile), cert: readFileSync(certFile), keepAliveTimeout: 60_000 };
  let total = 0;
  const receipts = new Map<string, number>();
  const deliveries = new Map<string, number>();
  let fresh: Array<[string, number]> = [];
  const reply = (message: ReceiverReply): void => {
    process.send?.(message);
  };

  const servers: Server[] = [];
  for (let i = 0; i < Number(countText); i++) {
    servers.push(
      createServer(options, (request, response) => {
        request.resume();
        request.on('end', () => {
          const at = epochNow();
          total++;
          const eventId = request.headers['x-service-event-id'];
          if (typeof eventId === 'string') {
            if (!receipts.has(eventId)) {
              receipts.set(eventId, at);
              fresh.push([eventId, at]);
            }
            deliveries.set(eventId, (deliveries.get(eventId) ?? 0) + 1);
          }
          response.writeHead(204);
          response.end();
        });
      }),
    );
  }
  let listening = 0;
  for (const server of servers) {
    server.listen(0, '127.0.0.1', () => {
      if (++listening === servers.length) reply({ type: 'ready', ports: servers.map((s) => (s.address() as AddressInfo).port) });
    });
  }
  process.on('message', (command: ReceiverCommand) => {
    if (command.type === 'count') reply({ type: 'count', total });
    else if (command.type === 'reset') {
      total = 0;
      receipts.clear();
      deliveries.clear();
      fresh = [];
      reply({ type: 'reset' });
    } else if (command.type === 'receipts') reply({ type: 'receipts', entries: [...receipts] });
    else if (command.type === 'take') {
      reply({ type: 'take', entries: fresh, total });
      fresh = [];
    } else if (command.type === 'tally') reply({ type: 'tally', entries: [...deliveries] });
  });
  process.on('SIGTERM', () => {
    for (const server of servers) server.close();
    process.exit(0);
  });
}

main();
