import { Body, Delete, Get, HttpCode, Post, Put, Query, Req } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { presentShipmentListItem, type ShipmentListItem, type ShipmentRecord } from '@app/domain';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { Idempotent } from '../common/idempotency/idempotent.decorator';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { ApiPageResponse, type Page } from '../common/paging';
import { IntParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { CreateShipmentDto, ReplaceShipmentDto } from './dto/create-shipment.dto';
import { ShipmentDto, ShipmentListItemDto } from './dto/shipment.dto';
import { ShipmentQueryDto } from './dto/shipment-query.dto';
import { BAD_SHIPMENT_BODY, CREATE_EXAMPLES, SHIPMENT_ID, SHIPMENT_NOT_FOUND } from './shipment-docs';
import { ShipmentsService } from '@app/domain';
import { type AccountId, BY_INTEGER } from '@app/vocabulary';

const RECORD_NOTE = 'The shipment record is the same representation that the `shipment.created` and `shipment.completed` webhook events carry as `data`.';

@PublicApiController('shipments', 'Shipments')
export class ShipmentsController {
  constructor(
    private readonly shipments: ShipmentsService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Scopes('shipments:read')
  @ApiOperation({ summary: 'List shipments, newest first', description: 'Filters: `status` (`active`, `completed`) and `search` (reference, name, receiver, carrier, device label).' })
  @ApiPageResponse(ShipmentListItemDto)
  @ApiResponse(problemResponse(400, 'Invalid filter or paging parameter (`validation_failed`, `invalid_cursor`).'))
  async list(@Req() request: AuthenticatedRequest, @Query() query: ShipmentQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<ShipmentListItem>> {
    const page = this.paginator.start(request, query, BY_INTEGER);
    return this.paginator.finish(request, page, await this.shipments.list(accountId, query, page), (s) => s.id, presentShipmentListItem);
  }

  @Post('create')
  @HttpCode(201)
  @Scopes('shipments:write')
  @Idempotent()
  @ApiOperation({
    summary: 'Create a shipment (immediately active)',
    description:
      'The route is `origin_location_id` + `destination_location_id`, or comes from `template_id` (route, legs, carrier, receiver, alert preset — each overridden by the same field sent explicitly, null included). ' +
      'Every referenced id must be the account’s (400 naming the field). One to five devices: approved, not deleted, owned by the account, in no other active shipment. ' +
      `The shipment is active at once and its tracking window starts now; \`shipment.created\` is published. ${RECORD_NOTE}`,
  })
  @ApiBody({ type: CreateShipmentDto, examples: CREATE_EXAMPLES })
  @ApiCreatedResponse({ type: ShipmentDto, description: 'The created shipment.' })
  @ApiResponse(BAD_SHIPMENT_BODY)
  async create(@CurrentAccount() accountId: AccountId, @Body() body: CreateShipmentDto): Promise<ShipmentRecord> {
    return this.shipments.create(accountId, body);
  }

  @Get(':shipment_id')
  @Scopes('shipments:read')
  @SHIPMENT_ID
  @ApiOperation({
    summary: 'Shipment detail',
    description: `Route, planning, parties, transport legs with the active one, devices with attach/detach times, the AIS position of the active sea leg’s vessel (or null), summary figures and geofence events. ${RECORD_NOTE}`,
  })
  @ApiOkResponse({ type: ShipmentDto })
  @ApiResponse(SHIPMENT_NOT_FOUND)
  async get(@IntParam('shipment_id') shipmentId: number, @CurrentAccount() accountId: AccountId): Promise<ShipmentRecord> {
    return this.shipments.get(accountId, shipmentId);
  }

  @Put(':shipment_id')
  @Scopes('shipments:write')
  @SHIPMENT_ID
  @ApiOperation({
    summary: 'Update an active shipment',
    description:
      'Replaces route, planning, receiver, carrier, alert preset, legs and devices (up to five). Devices left out are detached now, new ones attached now; the attach/detach times are kept per device. ' +
      'A completed shipment is refused with 409 `shipment_not_active`.',
  })
  @ApiBody({ type: ReplaceShipmentDto })
  @ApiOkResponse({ type: ShipmentDto, description: 'The shipment as stored.' })
  @ApiResponse(BAD_SHIPMENT_BODY)
  @ApiResponse(SHIPMENT_NOT_FOUND)
  @ApiResponse(problemResponse(409, 'The shipment is completed (`shipment_not_active`).'))
  async replace(@IntParam('shipment_id') shipmentId: number, @Body() body: ReplaceShipmentDto, @CurrentAccount() accountId: AccountId): Promise<ShipmentRecord> {
    return this.shipments.replace(accountId, shipmentId, body);
  }

  @Delete(':shipment_id')
  @HttpCode(204)
  @Scopes('shipments:write')
  @SHIPMENT_ID
  @ApiOperation({
    summary: 'Delete an incomplete shipment',
    description: 'Detaches its devices and revokes its share link; it is then gone (404). Telemetry and alarms are untouched. A completed shipment is never deleted: 409 `shipment_completed`.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiResponse(SHIPMENT_NOT_FOUND)
  @ApiResponse(problemResponse(409, 'The shipment is completed (`shipment_completed`).'))
  async remove(@IntParam('shipment_id') shipmentId: number, @CurrentAccount() accountId: AccountId): Promise<void> {
    await this.shipments.remove(accountId, shipmentId);
  }

  @Post(':shipment_id/complete')
  @HttpCode(200)
  @Scopes('shipments:complete')
  @SHIPMENT_ID
  @ApiOperation({
    summary: 'Complete a shipment',
    description:
      'Atomic: of any number of concurrent calls exactly one succeeds (200 with the completed shipment), the others get 409 `shipment_not_active`. ' +
      'The tracking window is frozen at this moment (points recorded later never belong to the shipment), `shipment.completed` is published, and the shipment report (PDF and CSV) is generated right after (see `/reports/`). ' +
      'A state transition, not a record creation: no Idempotency-Key; a repeat is a 409.',
  })
  @ApiOkResponse({ type: ShipmentDto, description: 'The completed shipment.' })
  @ApiResponse(SHIPMENT_NOT_FOUND)
  @ApiResponse(problemResponse(409, 'The shipment is already completed (`shipment_not_active`).'))
  async complete(@IntParam('shipment_id') shipmentId: number, @CurrentAccount() accountId: AccountId): Promise<ShipmentRecord> {
    return this.shipments.complete(accountId, shipmentId);
  }
}
