import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import type { AppConfig } from '@app/config';
import { verifySecret } from '@app/domain';
import { APP_CONFIG } from '../config/config.module';
import { CredentialLookupService } from './credential-lookup.service';
import { TOKEN_ALGORITHM } from './jwt.strategy';
import { OAuthError } from './oauth-error';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** A hash to compare against when the client id is unknown, so timing does not reveal which ids exist. */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** RFC 6749 §4.4 client-credentials grant. */
@Injectable()
export class TokenService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly credentials: CredentialLookupService,
  ) {}

  async issue(clientId: string, clientSecret: string, requestedScope: string | undefined): Promise<TokenResponse> {
    const credential = clientId.length <= 200 ? await this.credentials.findByClientId(clientId) : null;
    const secretOk = await verifySecret(clientSecret, credential?.secretHash ?? DUMMY_HASH);
    if (!credential || !secretOk || credential.revoked) {
      throw new OAuthError(401, 'invalid_client', 'Client authentication failed.');
    }
    let scopes = credential.scopes;
    if (requestedScope !== undefined && requestedScope.trim() !== '') {
      const requested = [...new Set(requestedScope.trim().split(/\s+/))].filter((s) => s !== 'public');
      const notGranted = requested.filter((s) => !credential.scopes.includes(s));
      if (notGranted.length > 0) {
        throw new OAuthError(400, 'invalid_scope', `Scope(s) not granted to this client: ${notGranted.join(' ')}.`);
      }
      scopes = requested;
    }
    const keyPair = this.config.jwtSigningKeys[0];
    const scope = scopes.join(' ');
    const accessToken = sign({ scope }, keyPair.secret, {
      algorithm: TOKEN_ALGORITHM,
      keyid: keyPair.kid,
      issuer: this.config.jwtIssuer,
      audience: this.config.jwtAudience,
      subject: credential.clientId,
      jwtid: randomUUID(),
      expiresIn: this.config.tokenLifetimeSeconds,
    });
    this.credentials.touch(credential.id);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.config.tokenLifetimeSeconds, scope };
  }
}
