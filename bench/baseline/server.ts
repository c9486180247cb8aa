import 'reflect-metadata';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { loadConfig } from '@app/config';
import { asApiError } from '../../apps/api/src/common/api-error';
import { SerializedJson } from '../../apps/api/src/common/json-reply.adapter';
import { API_PREFIX } from '../../apps/api/src/common/public-api-controller';
import { BaselineAuth, HttpFailure } from './auth';
import { BaselineRoutes, type BaselineRequest } from './routes';
import { sqlShim } from './sql-shim';

/**
 * The baseline: a bare node:http server doing what the api does for the benchmarked routes —
 * the same JWT verification, credential lookup SQL, data SQL and JSON — and nothing else. Its
 * throughput is the limit of this stack (Node + pg + PostgreSQL) on this machine.
 */
const config = loadConfig();
const { dataSource, pool } = sqlShim(config.databaseUrl);
const auth = new BaselineAuth(config, dataSource);
const routes = new BaselineRoutes(config, dataSource);

const DEVICES = new RegExp(`^/${API_PREFIX}/devices/?$`);
const TELEMETRY = new RegExp(`^/${API_PREFIX}/devices/([^/]+)/telemetry/?$`);
const SHIPMENT = new RegExp(`^/${API_PREFIX}/shipments/([^/]+)/?$`);

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = body instanceof SerializedJson ? body.text : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://baseline');
  if (url.pathname === '/health') return send(response, 200, { status: 'ok' });
  if (request.method !== 'GET') return send(response, 405, { code: 'method_not_allowed' });
  const req: BaselineRequest = { path: url.pathname, query: Object.fromEntries(url.searchParams) };
  let match: RegExpExecArray | null;
  if (DEVICES.test(url.pathname)) {
    const accountId = await auth.authorize(request, ['devices:read']);
    return send(response, 200, await routes.devices(req, accountId));
  }
  if ((match = TELEMETRY.exec(url.pathname))) {
    const accountId = await auth.authorize(request, ['telemetry:read']);
    return send(response, 200, await routes.telemetryPage(req, accountId, match[1]));
  }
  if ((match = SHIPMENT.exec(url.pathname))) {
    const accountId = await auth.authorize(request, ['shipments:read']);
    return send(response, 200, await routes.shipment(accountId, match[1]));
  }
  send(response, 404, { code: 'not_found' });
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    if (error instanceof HttpFailure) return send(response, error.status, { code: error.code });
    const refusal = asApiError(error);
    if (refusal) return send(response, refusal.status, { code: refusal.code });
    process.stderr.write(`baseline: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    send(response, 500, { code: 'internal' });
  });
});

server.listen(config.port, '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
});
