import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The transfer floor of a read, run as a child process (IPC): a bare node:http server that answers
 * GET /<n> with the n-th of the bodies it was given (a JSON array of strings in the file named by
 * its one argument), from memory, as the api sends JSON. Reading the api's pages back from it costs
 * what HTTP and the client's JSON.parse cost for the same bytes and nothing else: no statement, no
 * presenter, no framework.
 */
export type ReplayReply = { type: 'ready'; port: number; bodies: number };

function main(): void {
  const bodies = (JSON.parse(readFileSync(process.argv[2], 'utf8')) as string[]).map((text) => Buffer.from(text, 'utf8'));
  const server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
    const body = bodies[Number((request.url ?? '').slice(1))];
    if (request.method !== 'GET' || body === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    response.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const reply: ReplayReply = { type: 'ready', port: (server.address() as AddressInfo).port, bodies: bodies.length };
    process.send?.(reply);
  });
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
  });
}

main();
