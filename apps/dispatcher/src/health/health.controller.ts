import { Controller, Get, Header, Res } from '@nestjs/common';
import type { Response } from 'express';
import { DispatcherMetrics } from '../observability/metrics';
import { ReadinessRegistry } from '@app/observability';

/**
 * The dispatcher's only HTTP surface, on DISPATCHER_PORT: an operations port (like the api's
 * OPS_PORT), listening on OPS_HOST (default 127.0.0.1), never published.
 */
@Controller()
export class HealthController {
  constructor(
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: DispatcherMetrics,
  ) {}

  @Get('health/live')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() response: Response): Promise<void> {
    const result = await this.readiness.run();
    response.status(result.ok ? 200 : 503).json({ status: result.ok ? 'ok' : 'unavailable', checks: result.checks });
  }

  @Get('metrics')
  @Header('Cache-Control', 'no-store')
  async scrape(@Res() response: Response): Promise<void> {
    response.setHeader('Content-Type', this.metrics.registry.contentType);
    response.send(await this.metrics.registry.metrics());
  }
}
