import { Body, Delete, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CurrentAccount, CurrentPrincipal, Scopes } from '../../auth/auth.decorators';
import type { AuthenticatedRequest, Principal } from '../../auth/principal';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';
import { AccountRateLimit } from '../../common/rate-limits/account-rate-limit';
import { problemResponse } from '../../common/openapi-responses';
import { Paginator } from '../../common/paginator';
import { ApiPageResponse, PageQueryDto, type Page } from '../../common/paging';
import { UuidParam } from '../../common/params';
import { PublicApiController } from '../../common/public-api-controller';
import { CreateInvitationDto } from './dto/create-invitation.dto';
import { InvitationDto } from './dto/invitation.dto';
import { InvitationsService } from '@app/domain';
import { type AccountId, BY_UUID } from '@app/vocabulary';

@PublicApiController('user-invitations', 'Users')
export class InvitationsController {
  constructor(
    private readonly invitations: InvitationsService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Scopes('users:read')
  @ApiOperation({
    summary: 'List invitations',
    description: 'Pending, accepted and expired invitations of the account, oldest first (revoked ones are gone). The token is never shown.',
  })
  @ApiPageResponse(InvitationDto)
  @ApiResponse(problemResponse(400, 'Invalid paging parameters (`validation_failed`, `invalid_cursor`).'))
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<InvitationDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    return this.paginator.finish(request, page, await this.invitations.list(accountId, page), (i) => i.id, InvitationDto.from);
  }

  @Post()
  @HttpCode(201)
  @Scopes('users:invite')
  @ApiOperation({
    summary: 'Invite a user',
    description:
      'E-mails the person a single-use link (valid 7 days) to the service-hosted password page; setting a password there creates the user with the invited role. The token is never returned. The e-mail is queued with the invitation and sent right after the response is committed, retried with backoff for about a day while the mail server is unreachable; the response never waits for the mail server. Each account may send 20 invitations per hour by default (429 `rate_limited` with `Retry-After` beyond; a replay of an earlier request is not counted). Refused for an address that already belongs to a user of this account (`user_exists`) or has a pending invitation to this account (`already_invited`), and for `COMPANY_ADMIN` (`role_not_assignable`). An address in use elsewhere on the platform is answered like any other (the service does not disclose who uses it); the hosted page tells the invitee.',
  })
  @ApiBody({
    type: CreateInvitationDto,
    examples: { operator: { summary: 'Invite an operator', value: { email: 'mehmet.demir@polar-pharma.example', full_name: 'Mehmet Demir', role: 'OPERATOR' } } },
  })
  @ApiCreatedResponse({ type: InvitationDto, description: 'The invitation (status `pending`); its e-mail is queued and sent after commit.' })
  @ApiResponse(problemResponse(400, 'Invalid field or unknown field (`validation_failed`).'))
  @ApiResponse(
    problemResponse(
      409,
      '`user_exists`, `already_invited`, `role_not_assignable`, or `idempotency_request_in_progress` while the first request with this key runs.',
    ),
  )
  @AccountRateLimit('user-invitations-per-account') // each invitation is an e-mail: inside @Idempotent (replays are not counted)
  @Idempotent() // applied first: the fuller 409 description above replaces its generic one
  async create(@CurrentAccount() accountId: AccountId, @CurrentPrincipal() principal: Principal, @Body() body: CreateInvitationDto): Promise<InvitationDto> {
    return InvitationDto.from(await this.invitations.create(accountId, principal.credentialId, body));
  }

  @Delete(':invitation_id')
  @HttpCode(204)
  @Scopes('users:invite')
  @ApiParam({ name: 'invitation_id', format: 'uuid' })
  @ApiOperation({ summary: 'Revoke an invitation', description: 'Revokes a pending or expired invitation; its link stops working at once.' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiResponse(problemResponse(404, 'No such invitation in the selected account, or already revoked (`not_found`).'))
  @ApiResponse(problemResponse(409, 'The invitation was accepted (`invitation_already_accepted`).'))
  async revoke(@CurrentAccount() accountId: AccountId, @UuidParam('invitation_id') invitationId: string): Promise<void> {
    await this.invitations.revoke(accountId, invitationId);
  }
}
