import { Get, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { ApiPageResponse, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { AlarmsService, DevicesService } from '@app/domain';
import { DeviceAlarmQueryDto } from './dto/alarm-query.dto';
import { AlarmDto } from './dto/alarm.dto';
import { type AccountId, BY_UUID } from '@app/vocabulary';

@PublicApiController('devices', 'Devices')
export class DeviceAlarmsController {
  constructor(
    private readonly devices: DevicesService,
    private readonly alarms: AlarmsService,
    private readonly paginator: Paginator,
  ) {}

  @Get(':device_id/alarms')
  @Scopes('alarms:read')
  @ApiOperation({
    summary: 'Alarms of the device’s current lifecycle, newest first',
    description: 'Only alarms raised during the tenant’s current ownership of the device. Filters: `resolved`, `severity`.',
  })
  @ApiPageResponse(AlarmDto)
  @ApiResponse(problemResponse(404, 'No such device in this account (`not_found`).'))
  async list(
    @Req() request: AuthenticatedRequest,
    @UuidParam('device_id') deviceId: string,
    @Query() query: DeviceAlarmQueryDto,
    @CurrentAccount() accountId: AccountId,
  ): Promise<Page<AlarmDto>> {
    const device = await this.devices.get(accountId, deviceId);
    const page = this.paginator.start(request, query, BY_UUID);
    const rows = await this.alarms.list(accountId, { resolved: query.resolved, severity: query.severity, lifecycle_id: device.lifecycle_id }, page);
    return this.paginator.finish(request, page, rows, (a) => a.id, AlarmDto.from);
  }
}
