import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { decode } from 'jsonwebtoken';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '../config/config.module';
import { InvalidTokenError } from '../common/api-error';
import { CredentialLookupService } from './credential-lookup.service';
import type { Principal } from './principal';

export const TOKEN_ALGORITHM = 'HS256';

export interface AccessTokenClaims {
  sub: string;
  scope: string;
  jti: string;
  iss: string;
  aud: string;
  exp: number;
  iat: number;
}

/** Verifies the bearer JWT (pinned algorithm, issuer, audience, key by `kid`) and loads the credential. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly credentials: CredentialLookupService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: [TOKEN_ALGORITHM],
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      ignoreExpiration: false,
      secretOrKeyProvider: (_request: unknown, rawJwt: string, done: (error: unknown, key?: string) => void) => {
        const header = decode(rawJwt, { complete: true })?.header;
        const key = config.jwtSigningKeys.find((k) => k.kid === header?.kid);
        if (!key) done(new InvalidTokenError('The token was signed with an unknown key.'));
        else done(null, key.secret);
      },
    });
  }

  async validate(claims: AccessTokenClaims): Promise<Principal> {
    if (typeof claims.sub !== 'string' || typeof claims.scope !== 'string') throw new InvalidTokenError();
    const credential = await this.credentials.findByClientId(claims.sub);
    if (!credential || credential.revoked) throw new InvalidTokenError('The credential behind this token is revoked.');
    const current = new Set(credential.scopes);
    this.credentials.touch(credential.id);
    return {
      credentialId: credential.id,
      clientId: credential.clientId,
      scopes: new Set(claims.scope.split(' ').filter((s) => current.has(s))),
      accountIds: credential.accountIds,
    };
  }
}
