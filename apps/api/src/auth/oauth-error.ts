import { ApiError } from '../common/api-error';
import type { OAuthErrorCode } from '@app/vocabulary';

/** Token-endpoint errors keep the RFC 6749 §5.2 body (`error`, `error_description`), not problem details. */
export class OAuthError extends ApiError {
  constructor(status: number, readonly oauthCode: OAuthErrorCode, description: string) {
    super(status, oauthCode, oauthCode, description, undefined, {
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      ...(status === 401 ? { 'WWW-Authenticate': 'Basic realm="coldchain-public-api"' } : {}),
    });
  }

  toBody(): { error: string; error_description: string } {
    return { error: this.oauthCode, error_description: this.detail ?? this.title };
  }
}
