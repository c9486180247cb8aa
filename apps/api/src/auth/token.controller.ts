import { Body, Controller, Header, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { API_PREFIX } from '../common/public-api-controller';
import { OAuthError } from './oauth-error';
import { Public } from './auth.decorators';
import { TOKEN_ENDPOINT_LIMIT } from './rate-limit.guard';
import { SetMetadata } from '@nestjs/common';
import { TokenService, type TokenResponse } from './token.service';

class TokenRequestDto {
  @ApiProperty({ enum: ['client_credentials'] }) grant_type: string;
  @ApiPropertyOptional({ description: 'Client ID, when not sent with HTTP Basic authentication.' }) client_id?: string;
  @ApiPropertyOptional({ description: 'Client secret, when not sent with HTTP Basic authentication.' }) client_secret?: string;
  @ApiPropertyOptional({ description: 'Space-separated subset of the client’s scopes; default: all of them.', example: 'devices:read telemetry:read' })
  scope?: string;
}

class TokenResponseDto {
  @ApiProperty() access_token: string;
  @ApiProperty({ enum: ['Bearer'] }) token_type: string;
  @ApiProperty({ example: 3600, description: 'Lifetime in seconds (at most one hour).' }) expires_in: number;
  @ApiProperty({ example: 'devices:read telemetry:read' }) scope: string;
}

class OAuthErrorDto {
  @ApiProperty({ enum: ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope'] }) error: string;
  @ApiProperty() error_description: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** RFC 6749 §2.3.1: both parts are form-urlencoded before being joined with a colon. */
function parseBasic(header: string | undefined): { clientId: string; clientSecret: string } | null | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

@ApiTags('Authentication')
@Controller(`${API_PREFIX}/oauth/token`)
export class TokenController {
  constructor(private readonly tokens: TokenService) {}

  @Post()
  @Public()
  @SetMetadata(TOKEN_ENDPOINT_LIMIT, true)
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Pragma', 'no-cache')
  @ApiOperation({
    summary: 'Exchange client credentials for an access token',
    description:
      'OAuth 2.0 client-credentials grant (RFC 6749 §4.4), scope `public`. Authenticate with HTTP Basic or `client_id`/`client_secret` in the body (not both). The JWT is valid for at most one hour; there is no refresh token — repeat the exchange. Errors use the RFC 6749 §5.2 body. Limited per client IP.',
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'application/json')
  @ApiBody({ type: TokenRequestDto })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 400, description: 'invalid_request, unsupported_grant_type or invalid_scope', type: OAuthErrorDto })
  @ApiResponse({ status: 401, description: 'invalid_client', type: OAuthErrorDto })
  @ApiResponse({ status: 429, description: 'Too many token requests from this address (problem details, `rate_limited`).' })
  async token(@Req() request: Request, @Body() body: unknown): Promise<TokenResponse> {
    const form = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const grantType = text(form.grant_type);
    if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
    if (grantType !== 'client_credentials') {
      throw new OAuthError(400, 'unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
    }
    const basic = parseBasic(request.header('authorization'));
    const bodyId = text(form.client_id);
    const bodySecret = text(form.client_secret);
    if (basic === null) throw new OAuthError(401, 'invalid_client', 'Malformed HTTP Basic credentials.');
    if (basic && (bodyId !== undefined || bodySecret !== undefined)) {
      throw new OAuthError(400, 'invalid_request', 'Use either HTTP Basic or body credentials, not both.');
    }
    const clientId = basic?.clientId ?? bodyId;
    const clientSecret = basic?.clientSecret ?? bodySecret;
    if (!clientId || !clientSecret) throw new OAuthError(401, 'invalid_client', 'Client authentication is required.');
    if (form.scope !== undefined && typeof form.scope !== 'string') {
      throw new OAuthError(400, 'invalid_request', 'scope must be a space-separated string.');
    }
    return this.tokens.issue(clientId, clientSecret, text(form.scope));
  }
}
