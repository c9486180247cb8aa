import { Body, Get, Patch, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { ApiPageResponse, PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { DevicesService } from '@app/domain';
import { DeviceDto, UpdateDeviceLabelDto } from './dto/device.dto';
import { UpdateDeviceSettingsDto } from './dto/device-settings.dto';
import { DeviceStatusDto } from './dto/device-status.dto';
import { MaintenanceRecordDto } from './dto/maintenance-record.dto';
import { type AccountId, BY_UUID, BY_TIME_AND_UUID } from '@app/vocabulary';

const NOT_FOUND = problemResponse(404, 'No such device in this account: unknown, of another tenant, not approved or deleted (`not_found`).');

@PublicApiController('devices', 'Devices')
export class DevicesController {
  constructor(
    private readonly devices: DevicesService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Scopes('devices:read')
  @ApiOperation({ summary: 'List the tenant’s approved, non-deleted devices', description: 'Ordered by id (registration order).' })
  @ApiPageResponse(DeviceDto)
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<DeviceDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    const rows = await this.devices.list(accountId, page);
    return this.paginator.finish(request, page, rows, (d) => d.id, DeviceDto.from);
  }

  @Get(':device_id')
  @Scopes('devices:read')
  @ApiOperation({ summary: 'Device detail (safe operational view, with its settings)' })
  @ApiOkResponse({ type: DeviceDto })
  @ApiResponse(NOT_FOUND)
  async get(@UuidParam('device_id') deviceId: string, @CurrentAccount() accountId: AccountId): Promise<DeviceDto> {
    return DeviceDto.from(await this.devices.get(accountId, deviceId));
  }

  @Patch(':device_id/label')
  @Scopes('devices:read', 'devices:label:write')
  @ApiOperation({ summary: 'Change the customer-visible label', description: 'Accepts only `label` (null clears it); any other field is a 400 `validation_failed`.' })
  @ApiOkResponse({ type: DeviceDto })
  @ApiResponse(NOT_FOUND)
  async updateLabel(@UuidParam('device_id') deviceId: string, @Body() body: UpdateDeviceLabelDto, @CurrentAccount() accountId: AccountId): Promise<DeviceDto> {
    return DeviceDto.from(await this.devices.updateLabel(accountId, deviceId, body.label));
  }

  @Patch(':device_id/settings')
  @Scopes('devices:read', 'devices:settings:write')
  @ApiOperation({
    summary: 'Update intervals, sensor usage, thresholds and alert preset',
    description:
      'Only the fields sent change, inside `sensors` and `thresholds` too; null clears a threshold or detaches the preset. ' +
      'Refused with 400 `validation_failed`: unknown fields, values out of bounds, a transmission interval shorter than the measurement interval, ' +
      'a minimum above its maximum, an alert preset that is not the tenant’s (`unknown_alert_preset`).',
  })
  @ApiOkResponse({ type: DeviceDto })
  @ApiResponse(NOT_FOUND)
  async updateSettings(@UuidParam('device_id') deviceId: string, @Body() body: UpdateDeviceSettingsDto, @CurrentAccount() accountId: AccountId): Promise<DeviceDto> {
    return DeviceDto.from(await this.devices.updateSettings(accountId, deviceId, body));
  }

  @Get(':device_id/status')
  @Scopes('devices:read')
  @ApiOperation({ summary: 'Connectivity, battery and last location', description: 'Status of the tenant’s ownership only: a previous owner’s last contact is not shown.' })
  @ApiOkResponse({ type: DeviceStatusDto })
  @ApiResponse(NOT_FOUND)
  async status(@UuidParam('device_id') deviceId: string, @CurrentAccount() accountId: AccountId): Promise<DeviceStatusDto> {
    return this.devices.status(accountId, deviceId);
  }

  @Get(':device_id/maintenance')
  @Scopes('maintenance:read')
  @ApiOperation({
    summary: 'Maintenance, fault, repair and calibration records (no cost fields)',
    description: 'Newest first: records of the tenant’s ownership and platform-side work done between owners.',
  })
  @ApiPageResponse(MaintenanceRecordDto)
  @ApiResponse(NOT_FOUND)
  async maintenance(
    @Req() request: AuthenticatedRequest,
    @UuidParam('device_id') deviceId: string,
    @Query() query: PageQueryDto,
    @CurrentAccount() accountId: AccountId,
  ): Promise<Page<MaintenanceRecordDto>> {
    const page = this.paginator.start(request, query, BY_TIME_AND_UUID);
    const rows = await this.devices.maintenance(accountId, deviceId, page);
    return this.paginator.finish(request, page, rows, (m) => ({ at: m.performed_at_key, id: m.id }), MaintenanceRecordDto.from);
  }
}
