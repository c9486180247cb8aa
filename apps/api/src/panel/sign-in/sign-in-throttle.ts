import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { clientAddressKey } from '../../common/rate-limits/client-address';
import { retryAfterSeconds } from '../../common/rate-limits/rate-limits';
import { sharedCounter } from '../../common/rate-limits/shared-counter';
import { APP_CONFIG } from '../../config/config.module';

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

export type ThrottleCheck = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Login rate limiting (rate-limiter-flexible, counters in PostgreSQL shared by every api replica):
 * per client address (an IPv6 /64 is one address) on every attempt — PANEL_SIGN_IN_ATTEMPTS_PER_IP
 * — and per e-mail address on failures — PANEL_SIGN_IN_FAILURES_PER_EMAIL — so that guessing one
 * person's password and spraying many addresses are both slowed down. The same counters apply to
 * addresses that do not exist, so being limited reveals nothing about an account.
 *
 * Both counters are consumed *before* the password is checked: a check that read the failure
 * count first and added to it after the (slow, deliberately) hash comparison let every parallel
 * request read the same count, so 30 simultaneous guesses were all checked. Now each attempt takes
 * a point at once and only the first N reach the hash — on one replica or on several, since the
 * counters are rows in PostgreSQL; a success gives the e-mail's points back.
 */
@Injectable()
export class SignInThrottle {
  private readonly perIp: RateLimiterAbstract;
  private readonly perEmail: RateLimiterAbstract;

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectDataSource() dataSource: DataSource) {
    this.perIp = sharedCounter(dataSource, 'panel-sign-in-ip', config.panelSignInAttemptsPerIp, SIGN_IN_WINDOW_SECONDS);
    this.perEmail = sharedCounter(dataSource, 'panel-sign-in-email', config.panelSignInFailuresPerEmail, SIGN_IN_WINDOW_SECONDS);
  }

  /** Counts the attempt against the client address and the e-mail address; refuses when either is spent. */
  async attempt(ip: string | undefined, email: string): Promise<ThrottleCheck> {
    try {
      await this.perIp.consume(clientAddressKey(ip));
      await this.perEmail.consume(email);
      return { allowed: true };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(rejection.msBeforeNext) };
    }
  }

  /** A right password clears the e-mail's failures (its point was taken by `attempt`). */
  async succeeded(email: string): Promise<void> {
    await this.perEmail.delete(email);
  }
}
