import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ReadinessRegistry } from '@app/observability';
import { Metrics } from '../observability/metrics';

const ALLOWED = 'GET, HEAD';

/**
 * The api's operations port (OPS_PORT on OPS_HOST, default 127.0.0.1:9464): Prometheus `/metrics`,
 * `/health/live` and the detailed `/health/ready` report (each check and its error). None of it is
 * for the public: metrics name routes, volumes and internals, and readiness errors can name hosts.
 * A plain node:http server, outside the Nest/Express pipeline: no API guard, body parser, or
 * request log applies, and nothing else (API, panel, pages) can be reached through it.
 *
 * main.ts starts it after the public port; it closes last on shutdown, so metrics stay readable
 * while the api drains.
 */
@Injectable()
export class OpsServer implements OnApplicationShutdown {
  private server: Server | null = null;

  constructor(
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: Metrics,
  ) {}

  async listen(port: number, host: string): Promise<AddressInfo> {
    if (this.server) throw new Error('the ops server is already listening');
    const server = createServer((request, response) => {
      this.handle(request, response).catch(() => {
        if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'application/json' });
        response.end('{"status":"error"}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return server.address() as AddressInfo;
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // Prometheus keeps its connection open between scrapes
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0].replace(/(.)\/+$/, '$1');
    const route = ({ '/metrics': 'metrics', '/health/live': 'live', '/health/ready': 'ready' } as const)[path];
    if (!route) return send(response, 404, 'application/json', '{"status":"not found"}');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', ALLOWED);
      return send(response, 405, 'application/json', '{"status":"method not allowed"}');
    }
    if (route === 'metrics') return send(response, 200, this.metrics.registry.contentType, await this.metrics.registry.metrics());
    if (route === 'live') return send(response, 200, 'application/json', '{"status":"ok"}');
    const result = await this.readiness.run();
    send(response, result.ok ? 200 : 503, 'application/json', JSON.stringify({ status: result.ok ? 'ok' : 'unavailable', checks: result.checks, ...(result.degraded.length > 0 ? { degraded: result.degraded } : {}) }));
  }
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}
