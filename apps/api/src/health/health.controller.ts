import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ReadinessRegistry } from '@app/observability';

/** A public readiness answer is computed at most this often, however many requests ask. */
const PUBLIC_READY_TTL_MS = 1000;

/**
 * What the public port says about health: liveness, and readiness as one word for a load balancer
 * (200 `ok` / 503 `unavailable`), naming what is degraded but not down (`degraded`: the read replica). The detailed report and the Prometheus metrics are on the
 * operations port only (OpsServer). The public answer is shared for a second so that anyone's
 * flood of readiness requests cannot turn into a flood of database and broker probes.
 */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  private cached: { at: number; result: Promise<{ ok: boolean; degraded: string[] }> } | null = null;

  constructor(private readonly readiness: ReadinessRegistry) {}

  @Get('health/live')
  @Header('Cache-Control', 'no-store')
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('health/ready')
  async ready(@Res() response: Response): Promise<void> {
    const { ok, degraded } = await this.publicReadiness();
    response.setHeader('Cache-Control', 'no-store');
    // A degraded part (the read replica away or lagging: its reads run on the primary) is named,
    // without details, and does not make the api unready.
    response.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', ...(degraded.length > 0 ? { degraded } : {}) });
  }

  private publicReadiness(): Promise<{ ok: boolean; degraded: string[] }> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at >= PUBLIC_READY_TTL_MS) {
      this.cached = { at: now, result: this.readiness.run().then(({ ok, degraded }) => ({ ok, degraded })) };
    }
    return this.cached.result;
  }
}
