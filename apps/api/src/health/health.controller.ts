import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { Metrics } from '../observability/metrics';
import { ReadinessRegistry } from '@app/observability';

@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly readiness: ReadinessRegistry,
    private readonly metrics: Metrics,
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
