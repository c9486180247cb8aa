import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { identifyReader } from '@app/database';
import { ApiError } from '../common/api-error';
import { InvalidTokenError } from './auth-errors';
import { apiGuardsStandAside } from './auth.decorators';
import type { Principal } from './principal';
import { isDatabaseUnavailable } from '../common/database-unavailable';

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

  override handleRequest<T = Principal>(error: unknown, principal: T, info: unknown): T {
    if (error instanceof ApiError) throw error;
    // The credential lookup could not reach PostgreSQL: that is a 503 (the filter maps it), not a bad token.
    if (isDatabaseUnavailable(error)) throw error;
    if (error || !principal) {
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
