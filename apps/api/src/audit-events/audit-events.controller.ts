import { Get, Query, Req } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import type { DataSource } from 'typeorm';
import { findAuditEvent, listAuditEvents } from '@app/database';
import { NotFoundError } from '@app/domain';
import { type AccountId, BY_TIME_AND_UUID } from '@app/vocabulary';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { ApiPageResponse, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { AuditEventQueryDto } from './dto/audit-event-query.dto';
import { AuditEventDto } from './dto/audit-event.dto';

@PublicApiController('audit-events', 'Audit trail')
export class AuditEventsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Scopes('audit:read')
  @ApiOperation({
    summary: 'List the account’s audit trail, newest first',
    description:
      'Every change made to the account’s records through the API, the web panel, the operator command line or by the service itself, ' +
      'with who made it, from where, why (`X-Change-Reason`) and each changed field’s value before and after (secrets only as changed). ' +
      'Filters: `resource_type`, `resource_id`, `actor`, `action`, `from`, `until`. Records are never changed or removed.',
  })
  @ApiPageResponse(AuditEventDto)
  async list(@Req() request: AuthenticatedRequest, @Query() query: AuditEventQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<AuditEventDto>> {
    const page = this.paginator.start(request, query, BY_TIME_AND_UUID);
    const rows = await listAuditEvents(
      this.dataSource,
      accountId,
      {
        resourceType: query.resource_type,
        resourceId: query.resource_id,
        actor: query.actor,
        action: query.action,
        from: query.from ? new Date(query.from) : undefined,
        until: query.until ? new Date(query.until) : undefined,
      },
      { limit: page.limit + 1, after: page.after },
    );
    return this.paginator.finish(request, page, rows, (row) => ({ at: row.position_at, id: row.id }), AuditEventDto.from);
  }

  @Get(':event_id')
  @Scopes('audit:read')
  @ApiOperation({ summary: 'Audit record detail' })
  @ApiOkResponse({ type: AuditEventDto })
  @ApiResponse(problemResponse(404, 'No such audit record in this account (`not_found`).'))
  async get(@UuidParam('event_id') eventId: string, @CurrentAccount() accountId: AccountId): Promise<AuditEventDto> {
    const row = await findAuditEvent(this.dataSource, accountId, eventId);
    if (!row) throw new NotFoundError('Audit record');
    return AuditEventDto.from(row);
  }
}
