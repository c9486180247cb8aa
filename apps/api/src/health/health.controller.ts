import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ReadinessRegistry } from '@app/observability';

/** A public readiness answer is computed at most this often, however many requests ask. */
const PUBLIC_READY_TTL_MS = 1000;

/**
 * What the public port says about health: liveness, and readiness as one word for a load balancer
 * (200 `ok` / 503 `unavailable`). The detailed report and the Prometheus metrics are on the
 * operations port only (OpsServer). The public answer is shared for a second so that anyone's
 * flood of readiness requests cannot turn into a flood of database and broker probes.
 */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  private cached: { at: number; ok: Promise<boolean> } | null = null;

  constructor(private readonly readiness: ReadinessRegistry) {}

  @Get('health/live')
  @Header('Cache-Control', 'no-store')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() response: Response): Promise<void> {
    const ok = await this.publicReadiness();
    response.setHeader('Cache-Control', 'no-store');
    response.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable' });
  }

  private publicReadiness(): Promise<boolean> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at >= PUBLIC_READY_TTL_MS) {
      this.cached = { at: now, ok: this.readiness.run().then((result) => result.ok) };
    }
    return this.cached.ok;
  }
}
