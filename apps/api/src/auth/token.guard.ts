import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { identifyReader } from '@app/database';
import { InvalidTokenError } from './auth-errors';
import { apiGuardsStandAside } from './auth.decorators';
import type { Principal } from './principal';

/**
 * First global guard (token → rate limit → scopes → tenant, registered in that order in
 * AuthModule): every route needs a valid bearer token of a live credential, except `@Public()`
 * routes and web panel routes (see apiGuardsStandAside).
 */
@Injectable()
export class TokenGuard extends AuthGuard('jwt') {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext): ReturnType<ReturnType<typeof AuthGuard>['prototype']['canActivate']> {
    if (apiGuardsStandAside(this.reflector, context)) return true;
    return super.canActivate(context);
  }

  /** Passport stores the validated principal on `request.principal` (not `request.user`). */
  override getAuthenticateOptions(): { property: string; session: boolean } {
    return { property: 'principal', session: false };
  }

  /**
   * passport-jwt reports a token it refuses (signature, expiry, audience, key) as `info`, and
   * whatever the strategy's `validate` throws as `error`. That is an ApiError when the credential
   * refuses the caller (revoked, malformed claims); anything else is a failure of the credential
   * lookup itself — the server's fault, not the token's. It goes on to the exception filter: a 503
   * with Retry-After for a database outage, else a 500 with an error_id and a log line. Answering
   * 401 would send a client to fetch new tokens over a fault it cannot fix, and hide the fault.
   */
  override handleRequest<T = Principal>(error: unknown, principal: T, info: unknown): T {
    if (error) throw error;
    if (!principal) {
      const message = info instanceof Error ? info.message : undefined;
      if (message === 'jwt expired') throw new InvalidTokenError('The access token has expired.');
      if (message === 'No auth token') throw new InvalidTokenError('An access token is required (Authorization: Bearer <token>).');
      throw new InvalidTokenError();
    }
    // Read-your-writes is per credential (apps/api/src/database/read-replica.service.ts).
    identifyReader((principal as unknown as Principal).credentialId);
    return principal;
  }
}
