import { createLogger } from '@app/observability';
import type { IncomingMessage } from 'node:http';
import { decode, verify, type JwtPayload } from 'jsonwebtoken';
import type { AppConfig } from '@app/config';
import { CredentialLookupService } from '../../apps/api/src/auth/credential-lookup.service';
import { TOKEN_ALGORITHM, verificationKeys } from '../../apps/api/src/auth/jwt.strategy';
import type { DataSource } from 'typeorm';
import { toAccountId, type AccountId } from '@app/vocabulary';

export class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

/**
 * The api's checks, without Nest, Passport or Express: bearer JWT verified with the pinned
 * algorithm, issuer, audience and key by `kid` (what passport-jwt does with the api's options),
 * the credential read with the api's own lookup SQL, all required scopes, the tenant.
 * Not done here: the once-a-minute "last used" touch and the rate limiter.
 */
export class BaselineAuth {
  private readonly credentials: CredentialLookupService;
  private readonly keys: ReturnType<typeof verificationKeys>;

  constructor(
    private readonly config: AppConfig,
    sql: DataSource,
  ) {
    this.credentials = new CredentialLookupService(sql as never, createLogger('silent', 'bench-baseline'));
    this.keys = verificationKeys(config);
  }

  /** The selected account id, or a 401/403/400 failure. */
  async authorize(request: IncomingMessage, requiredScopes: readonly string[]): Promise<AccountId> {
    const header = request.headers.authorization;
    const match = header ? /^bearer\s+(\S+)$/i.exec(header) : null;
    if (!match) throw new HttpFailure(401, 'invalid_token');
    const token = match[1];
    const kid = decode(token, { complete: true })?.header.kid;
    const key = typeof kid === 'string' ? this.keys.get(kid) : undefined;
    if (!key) throw new HttpFailure(401, 'invalid_token');
    let claims: JwtPayload;
    try {
      claims = verify(token, key, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: this.config.jwtIssuer,
        audience: this.config.jwtAudience,
      }) as JwtPayload;
    } catch {
      throw new HttpFailure(401, 'invalid_token');
    }
    if (typeof claims.sub !== 'string' || typeof claims.scope !== 'string') throw new HttpFailure(401, 'invalid_token');
    const credential = await this.credentials.findByClientId(claims.sub);
    if (!credential || credential.revoked) throw new HttpFailure(401, 'invalid_token');
    const current = new Set(credential.scopes);
    const granted = new Set(claims.scope.split(' ').filter((s) => current.has(s)));
    if (requiredScopes.some((s) => !granted.has(s))) throw new HttpFailure(403, 'insufficient_scope');
    const selected = request.headers['x-service-account-id'];
    if (typeof selected === 'string' && selected.trim()) {
      const id = selected.trim().toLowerCase();
      if (!credential.accountIds.includes(id)) throw new HttpFailure(403, 'account_not_allowed');
      return toAccountId(id);
    }
    if (credential.accountIds.length === 1) return toAccountId(credential.accountIds[0]);
    throw new HttpFailure(credential.accountIds.length === 0 ? 403 : 400, 'account_selection');
  }
}
