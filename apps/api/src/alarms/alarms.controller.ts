import { Body, Get, Patch, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { ApiPageResponse, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { AlarmsService } from '@app/domain';
import { AlarmQueryDto } from './dto/alarm-query.dto';
import { AlarmDto, UpdateAlarmDto } from './dto/alarm.dto';
import { type AccountId, BY_UUID } from '@app/vocabulary';

const NOT_FOUND = problemResponse(404, 'No such alarm in this account (`not_found`).');

@PublicApiController('alarms', 'Alarms')
export class AlarmsController {
  constructor(
    private readonly alarms: AlarmsService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Scopes('alarms:read')
  @ApiOperation({ summary: 'List the tenant’s alarms, newest first', description: 'Filters: `resolved`, `severity`, `device_id`, `shipment_id`.' })
  @ApiPageResponse(AlarmDto)
  async list(@Req() request: AuthenticatedRequest, @Query() query: AlarmQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<AlarmDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    const rows = await this.alarms.list(accountId, query, page);
    return this.paginator.finish(request, page, rows, (a) => a.id, AlarmDto.from);
  }

  @Get(':alarm_id')
  @Scopes('alarms:read')
  @ApiOperation({ summary: 'Alarm detail' })
  @ApiOkResponse({ type: AlarmDto })
  @ApiResponse(NOT_FOUND)
  async get(@UuidParam('alarm_id') alarmId: string, @CurrentAccount() accountId: AccountId): Promise<AlarmDto> {
    return AlarmDto.from(await this.alarms.get(accountId, alarmId));
  }

  @Patch(':alarm_id')
  @Scopes('alarms:write')
  @ApiOperation({
    summary: 'Resolve an alarm',
    description:
      'Accepts only `resolved`. `true` sets `resolved_at` and publishes `alarm.resolved`; repeating it changes nothing and publishes nothing. ' +
      '`resolved_by` is never set to the service account. `false` on an unresolved alarm changes nothing; on a resolved one it is a 409 `alarm_already_resolved`.',
  })
  @ApiOkResponse({ type: AlarmDto })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(problemResponse(409, 'The alarm is resolved and cannot be set back to unresolved (`alarm_already_resolved`).'))
  async update(@UuidParam('alarm_id') alarmId: string, @Body() body: UpdateAlarmDto, @CurrentAccount() accountId: AccountId): Promise<AlarmDto> {
    return AlarmDto.from(await this.alarms.setResolved(accountId, alarmId, body.resolved));
  }
}
