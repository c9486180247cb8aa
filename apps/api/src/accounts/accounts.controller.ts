import { Body, Get, Patch, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { CurrentPrincipal, Scopes, TenantFree } from '../auth/auth.decorators';
import type { AuthenticatedRequest, Principal } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { ApiPageResponse, PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { AccountsService } from '@app/domain';
import { AccountDto, UpdateAccountDto } from './dto/account.dto';
import { BY_UUID } from '@app/vocabulary';

@PublicApiController('accounts', 'Accounts', { tenant: false })
@TenantFree()
export class AccountsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Scopes('accounts:read')
  @ApiOperation({ summary: 'List the active customer accounts on the credential’s allow-list' })
  @ApiPageResponse(AccountDto)
  @ApiResponse(problemResponse(400, 'Invalid paging parameters (`validation_failed`, `invalid_cursor`).'))
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentPrincipal() principal: Principal): Promise<Page<AccountDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    const rows = await this.accounts.list(principal.accountIds, page);
    return this.paginator.finish(request, page, rows, (a) => a.id, AccountDto.from);
  }

  @Get(':account_id')
  @Scopes('accounts:read')
  @ApiOperation({ summary: 'Safe profile fields of an allow-listed company' })
  @ApiOkResponse({ type: AccountDto })
  @ApiResponse(problemResponse(404, 'Not on the allow-list, not active, or unknown (`not_found`).'))
  async get(@UuidParam('account_id') accountId: string, @CurrentPrincipal() principal: Principal): Promise<AccountDto> {
    return AccountDto.from(await this.accounts.get(principal.accountIds, accountId));
  }

  @Patch(':account_id')
  @Scopes('accounts:write')
  @ApiOperation({
    summary: 'Update contact and legal profile fields',
    description: 'Only the fields sent change. `status` and `subscription` are read-only: sending them is a 400 `validation_failed`.',
  })
  @ApiOkResponse({ type: AccountDto })
  @ApiResponse(problemResponse(400, 'Unknown or read-only field, or invalid value (`validation_failed`).'))
  @ApiResponse(problemResponse(404, 'Not on the allow-list, not active, or unknown (`not_found`).'))
  async update(
    @UuidParam('account_id') accountId: string,
    @Body() body: UpdateAccountDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<AccountDto> {
    return AccountDto.from(await this.accounts.update(principal.accountIds, accountId, body));
  }
}
