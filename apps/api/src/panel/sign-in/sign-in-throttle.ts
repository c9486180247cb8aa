import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { AppConfig } from '@app/config';
import { clientAddressKey } from '../../common/rate-limits/client-address';
import { retryAfterSeconds } from '../../common/rate-limits/rate-limits';
import { APP_CONFIG } from '../../config/config.module';

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

export type ThrottleCheck = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Login rate limiting (rate-limiter-flexible, counters in this process like the API's limits):
 * per client address (an IPv6 /64 is one address) on every attempt — PANEL_SIGN_IN_ATTEMPTS_PER_IP
 * — and per e-mail address on failures — PANEL_SIGN_IN_FAILURES_PER_EMAIL — so that guessing one
 * person's password and spraying many addresses are both slowed down. The same counters apply to
 * addresses that do not exist, so being limited reveals nothing about an account.
 *
 * Both counters are consumed *before* the password is checked: a check that read the failure
 * count first and added to it after the (slow, deliberately) hash comparison let every parallel
 * request read the same count, so 30 simultaneous guesses were all checked. Now each attempt takes
 * a point at once and only the first N reach the hash; a success gives the e-mail's points back.
 */
@Injectable()
export class SignInThrottle {
  private readonly perIp: RateLimiterMemory;
  private readonly perEmail: RateLimiterMemory;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.perIp = new RateLimiterMemory({ keyPrefix: 'panel-sign-in-ip', points: config.panelSignInAttemptsPerIp, duration: SIGN_IN_WINDOW_SECONDS });
    this.perEmail = new RateLimiterMemory({ keyPrefix: 'panel-sign-in-email', points: config.panelSignInFailuresPerEmail, duration: SIGN_IN_WINDOW_SECONDS });
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
