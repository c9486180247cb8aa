import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The loopback HTTPS webhook receiver, run as a child process (IPC): one server per endpoint,
 * each answering 204 after reading the body. Counts deliveries and, for the latency scenario,
 * records when each event id first arrived (epoch milliseconds, sub-millisecond precision).
 * Arguments: key file, certificate file, number of endpoints, and optionally how long each answer
 * waits (ms; throughput then bound by concurrency, not CPU).
 */
export type ReceiverCommand = { type: 'count' } | { type: 'connections' } | { type: 'reset' } | { type: 'receipts' } | { type: 'take' } | { type: 'tally' } | { type: 'ledger' } | { type: 'peaks' };
export type ReceiverReply =
  | { type: 'ready'; ports: number[] }
  | { type: 'count'; total: number }
  /** TLS connections accepted over the receiver's whole life (a new connection is a full or resumed handshake). */
  | { type: 'connections'; total: number }
  | { type: 'reset' }
  | { type: 'receipts'; entries: Array<[string, number]> }
  /** First receipts since the last 'take' (the soak run's latency samples, without resending everything). */
  | { type: 'take'; entries: Array<[string, number]>; total: number }
  /** Deliveries per event id (the soak run's missing/duplicate check). */
  | { type: 'tally'; entries: Array<[string, number]> }
  /** Distinct event ids per endpoint (`host:port/path`) over the receiver's whole life, never reset: its side of the ledger. */
  | { type: 'ledger'; entries: Array<[string, number]> }
  /** The most requests in flight at once per endpoint (`host:port/path`) since the last reset. */
  | { type: 'peaks'; entries: Array<[string, number]> };

const epochNow = (): number => performance.timeOrigin + performance.now();

function main(): void {
  const [keyFile, certFile, countText, answerAfterText] = process.argv.slice(2);
  const answerAfterMs = Number(answerAfterText ?? 0);
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  const options = { key: readFileSync(keyFile), cert: readFileSync(certFile), keepAliveTimeout: 60_000 };
  let total = 0;
  let connections = 0;
  const receipts = new Map<string, number>();
  const deliveries = new Map<string, number>();
  let fresh: Array<[string, number]> = [];
  const ledger = new Map<string, Set<string>>();
  const reply = (message: ReceiverReply): void => {
    process.send?.(message);
  };

  const servers: Server[] = [];
  for (let i = 0; i < Number(countText); i++) {
    let origin: string | null = null; // host:port, once listening
    const server: Server = createServer(options, (request, response) => {
      origin ??= `${(server.address() as AddressInfo).address}:${(server.address() as AddressInfo).port}`;
      const key = `${origin}${(request.url ?? '/').split('?')[0]}`;
      const now = (inFlight.get(key) ?? 0) + 1;
      inFlight.set(key, now);
      if (now > (peaks.get(key) ?? 0)) peaks.set(key, now);
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
          let seen = ledger.get(key);
          if (!seen) ledger.set(key, (seen = new Set()));
          seen.add(eventId);
        }
        const answer = (): void => {
          inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
          response.writeHead(204);
          response.end();
        };
        if (answerAfterMs > 0) setTimeout(answer, answerAfterMs);
        else answer();
      });
    });
    server.on('secureConnection', () => {
      connections++;
    });
    servers.push(server);
  }
  let listening = 0;
  for (const server of servers) {
    server.listen(0, '127.0.0.1', () => {
      if (++listening === servers.length) reply({ type: 'ready', ports: servers.map((s) => (s.address() as AddressInfo).port) });
    });
  }
  process.on('message', (command: ReceiverCommand) => {
    if (command.type === 'count') reply({ type: 'count', total });
    else if (command.type === 'connections') reply({ type: 'connections', total: connections });
    else if (command.type === 'reset') {
      total = 0;
      receipts.clear();
      deliveries.clear();
      fresh = [];
      peaks.clear();
      reply({ type: 'reset' });
    } else if (command.type === 'receipts') reply({ type: 'receipts', entries: [...receipts] });
    else if (command.type === 'take') {
      reply({ type: 'take', entries: fresh, total });
      fresh = [];
    } else if (command.type === 'tally') reply({ type: 'tally', entries: [...deliveries] });
    else if (command.type === 'peaks') reply({ type: 'peaks', entries: [...peaks] });
    else if (command.type === 'ledger') reply({ type: 'ledger', entries: [...ledger].map(([key, ids]): [string, number] => [key, ids.size]) });
  });
  // The harness went away (killed, or exited after a signal without stopping us): so do we.
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => {
    for (const server of servers) server.close();
    process.exit(0);
  });
}

main();
