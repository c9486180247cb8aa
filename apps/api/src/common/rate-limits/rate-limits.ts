import { Inject, Injectable, SetMetadata } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '../../config/config.module';
import { sharedCounter } from './shared-counter';

/** Limits on work that people and tenants can make the service do (besides the API's own, see RateLimitGuard). */
export type LimitName =
  | 'panel-post-per-user'
  | 'webhook-test-per-account'
  | 'webhook-endpoint-create-per-account'
  | 'invitation-accept-per-ip'
  | 'user-invitations-per-account';

export interface LimitPolicy {
  name: LimitName;
  points: number;
  windowSeconds: number;
}

export type LimitOutcome = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

/** Per-account limits a route adds on top of the panel's per-person limit (read by PanelSessionGuard). */
export const ACCOUNT_LIMIT = 'rate-limit:account';
export const AccountLimit = (name: Extract<LimitName, 'webhook-test-per-account' | 'webhook-endpoint-create-per-account'>): MethodDecorator =>
  SetMetadata(ACCOUNT_LIMIT, name);

/**
 * Exempts a panel POST from the per-person limit. Only for sign-out: it ends the session it is
 * sent with, so it cannot repeat, and a person at the limit must still be able to sign out.
 */
export const NO_PERSON_LIMIT = 'rate-limit:no-person-limit';
export const NoPersonLimit = (): MethodDecorator => SetMetadata(NO_PERSON_LIMIT, true);

export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * Fixed-window counters (rate-limiter-flexible) in PostgreSQL, shared by every api replica (see
 * sharedCounter). Every check consumes a point before the work is done, so parallel requests
 * cannot all pass a check that reads and then counts.
 */
@Injectable()
export class RateLimits {
  private readonly limiters = new Map<LimitName, { policy: LimitPolicy; limiter: RateLimiterAbstract }>();

  constructor(@Inject(APP_CONFIG) config: AppConfig, @InjectDataSource() dataSource: DataSource) {
    const policies: LimitPolicy[] = [
      { name: 'panel-post-per-user', points: config.panelPostsPerMinute, windowSeconds: 60 },
      { name: 'webhook-test-per-account', points: config.webhookTestEventsPerHour, windowSeconds: 3600 },
      { name: 'webhook-endpoint-create-per-account', points: config.webhookEndpointCreatesPerHour, windowSeconds: 3600 },
      { name: 'invitation-accept-per-ip', points: config.invitationAcceptsPerMinute, windowSeconds: 60 },
      { name: 'user-invitations-per-account', points: config.userInvitationsPerHour, windowSeconds: 3600 },
    ];
    for (const policy of policies) {
      this.limiters.set(policy.name, { policy, limiter: sharedCounter(dataSource, policy.name, policy.points, policy.windowSeconds) });
    }
  }

  policy(name: LimitName): LimitPolicy {
    return this.entry(name).policy;
  }

  /** Counts one unit of work for `key`; refused when the window's budget is spent. */
  async consume(name: LimitName, key: string): Promise<LimitOutcome> {
    try {
      const result = await this.entry(name).limiter.consume(key);
      return { allowed: true, remaining: result.remainingPoints };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return { allowed: false, retryAfterSeconds: retryAfterSeconds(rejection.msBeforeNext) };
    }
  }

  private entry(name: LimitName): { policy: LimitPolicy; limiter: RateLimiterAbstract } {
    const entry = this.limiters.get(name);
    if (!entry) throw new Error(`no rate limit ${name}`);
    return entry;
  }
}
