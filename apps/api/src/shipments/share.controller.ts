import { Body, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import { problemResponse } from '../common/openapi-responses';
import { IntParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { PutShareDto, ShareDto } from './dto/share.dto';
import { SHIPMENT_ID, SHIPMENT_NOT_FOUND } from './shipment-docs';
import { ShareService } from '@app/domain';
import type { AccountId } from '@app/vocabulary';

const LINK_RULES =
  'The link opens the public tracking page (outside the API, no login): status, route, planned times, last position and a temperature chart of the shipment window — no account or device identifiers. ' +
  'Each page view counts; past the expiry or the view limit, or after revocation, the page answers 404 and shows nothing. ' +
  'The URL is the only carrier of the link token: no response field is a bare token. The token is derived (HMAC-SHA256 under a key derived from the service\'s SECRETS_KEY, over the share and a per-refresh nonce): the service shows the same URL on every GET while the link works, and the database alone never yields a working link. Rotating SECRETS_KEY invalidates every link (GET then shows `url: null`; refresh to get a new one).';

@PublicApiController('shipments', 'Shipments')
export class ShareController {
  constructor(private readonly shares: ShareService) {}

  @Get(':shipment_id/share')
  @Scopes('shipments:read', 'shipments:share')
  @SHIPMENT_ID
  @ApiOperation({ summary: 'Sharing status of the shipment', description: `Enabled flag, the safe URL while the link works (null when disabled), expiry, view limit and views used. ${LINK_RULES}` })
  @ApiOkResponse({ type: ShareDto })
  @ApiResponse(SHIPMENT_NOT_FOUND)
  async get(@IntParam('shipment_id') shipmentId: number, @CurrentAccount() accountId: AccountId): Promise<ShareDto> {
    return this.shares.get(accountId, shipmentId);
  }

  @Put(':shipment_id/share')
  @Scopes('shipments:share')
  @SHIPMENT_ID
  @ApiOperation({
    summary: 'Create or refresh the share link',
    description:
      'Creates the shipment’s single share record, or refreshes it: a refresh issues a new URL (the previous one stops working at once) and resets the view count to 0. ' +
      'Send `expires_at` (1 hour to 90 days ahead) or `expires_in_hours` (1–2160), and `max_views` (1–10000). ' +
      `Completed shipments can be shared too. ${LINK_RULES}`,
  })
  @ApiOkResponse({ type: ShareDto, description: 'The share record with its new `url`.' })
  @ApiResponse(problemResponse(400, 'Invalid body (`validation_failed`): expiry missing, both forms sent, or out of bounds; view limit out of bounds.'))
  @ApiResponse(SHIPMENT_NOT_FOUND)
  async put(@IntParam('shipment_id') shipmentId: number, @Body() body: PutShareDto, @CurrentAccount() accountId: AccountId): Promise<ShareDto> {
    return this.shares.put(accountId, shipmentId, body);
  }

  @Delete(':shipment_id/share')
  @HttpCode(204)
  @Scopes('shipments:share')
  @SHIPMENT_ID
  @ApiOperation({ summary: 'Revoke the share link', description: 'The link stops working immediately. Revoking again (or with no link) changes nothing.' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiResponse(SHIPMENT_NOT_FOUND)
  async revoke(@IntParam('shipment_id') shipmentId: number, @CurrentAccount() accountId: AccountId): Promise<void> {
    await this.shares.revoke(accountId, shipmentId);
  }
}
