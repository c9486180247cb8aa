import { Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 15 * 60;
/** Sign-in attempts from one client address per window (an office behind one NAT included). */
export const ATTEMPTS_PER_IP = 30;
/** Failed sign-ins of one e-mail address per window (a success clears them). */
export const FAILURES_PER_EMAIL = 5;

export type ThrottleCheck = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Login rate limiting (rate-limiter-flexible, counters in this process like the API's limits):
 * per client IP on every attempt, and per e-mail address on failures, so that guessing one
 * person's password and spraying many addresses are both slowed down. The same counters apply to
 * addresses that do not exist, so being limited reveals nothing about an account.
 */
@Injectable()
export class SignInThrottle {
  private readonly perIp = new RateLimiterMemory({ keyPrefix: 'panel-sign-in-ip', points: ATTEMPTS_PER_IP, duration: WINDOW_SECONDS });
  private readonly perEmail = new RateLimiterMemory({ keyPrefix: 'panel-sign-in-email', points: FAILURES_PER_EMAIL, duration: WINDOW_SECONDS });

  /** Counts the attempt against the address and refuses when either limit is spent. */
  async attempt(ip: string, email: string): Promise<ThrottleCheck> {
    try {
      await this.perIp.consume(ip);
    } catch (rejection) {
      return this.refusal(rejection);
    }
    const failures = await this.perEmail.get(email);
    if (failures && failures.consumedPoints >= FAILURES_PER_EMAIL) return { allowed: false, retryAfterSeconds: seconds(failures.msBeforeNext) };
    return { allowed: true };
  }

  async failed(email: string): Promise<void> {
    await this.perEmail.penalty(email, 1);
  }

  async succeeded(email: string): Promise<void> {
    await this.perEmail.delete(email);
  }

  private refusal(rejection: unknown): ThrottleCheck {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { allowed: false, retryAfterSeconds: seconds(rejection.msBeforeNext) };
  }
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
