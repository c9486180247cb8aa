import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { clientAddressKey } from '../common/rate-limits/client-address';
import { RateLimits } from '../common/rate-limits/rate-limits';

/** The client sent too many forms of a hosted page in the current window; nothing was done. */
export class PageRateLimited extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`hosted page rate limit reached; retry after ${retryAfterSeconds} s`);
  }
}

/**
 * Per client address (an IPv6 /64 is one address) on the invitation password page's POST
 * (INVITATION_ACCEPTS_PER_MINUTE). Nobody is signed in there, so the address is the only key;
 * each submission costs a token lookup and, when the token is good, a password hash. Counted
 * before the handler runs, so a refused submission (429 page) looks at nothing.
 */
@Injectable()
export class InvitationAcceptLimitGuard implements CanActivate {
  constructor(private readonly limits: RateLimits) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const outcome = await this.limits.consume('invitation-accept-per-ip', clientAddressKey(request.ip));
    if (!outcome.allowed) throw new PageRateLimited(outcome.retryAfterSeconds);
    return true;
  }
}
