import { Inject, Injectable } from '@nestjs/common';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { PassportStrategy } from '@nestjs/passport';
import { decode } from 'jsonwebtoken';
import { ExtractJwt, Strategy } from 'passport-jwt';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '../config/config.module';
import { InvalidTokenError } from './auth-errors';
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

/**
 * The verification keys by `kid`, as KeyObjects made once: given a string, jsonwebtoken first
 * tries to parse it as a PEM public key on every call (an exception per request) before
 * falling back to a secret key.
 */
export function verificationKeys(config: AppConfig): ReadonlyMap<string, KeyObject> {
  return new Map(config.jwtSigningKeys.map((k) => [k.kid, createSecretKey(Buffer.from(k.secret, 'utf8'))]));
}

/** Verifies the bearer JWT (pinned algorithm, issuer, audience, key by `kid`) and loads the credential. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly credentials: CredentialLookupService,
  ) {
    const keys = verificationKeys(config);
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: [TOKEN_ALGORITHM],
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      ignoreExpiration: false,
      secretOrKeyProvider: (_request: unknown, rawJwt: string, done: (error: unknown, key?: string | Buffer) => void) => {
        const kid = decode(rawJwt, { complete: true })?.header.kid;
        const key = kid === undefined ? undefined : keys.get(kid);
        if (!key) done(new InvalidTokenError('The token was signed with an unknown key.'));
        // passport-jwt hands the key to jsonwebtoken.verify, which takes a KeyObject; its typings predate that.
        else done(null, key as unknown as Buffer);
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
