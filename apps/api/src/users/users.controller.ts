import { Body, Delete, Get, HttpCode, Patch, Query, Req } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { CurrentAccount, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedRequest } from '../auth/principal';
import { problemResponse } from '../common/openapi-responses';
import { Paginator } from '../common/paginator';
import { ApiPageResponse, PageQueryDto, type Page } from '../common/paging';
import { UuidParam } from '../common/params';
import { PublicApiController } from '../common/public-api-controller';
import { UpdateUserDto } from './dto/update-user.dto';
import { UserDto } from './dto/user.dto';
import { UsersService } from '@app/domain';
import { type AccountId, BY_UUID } from '@app/vocabulary';

const NOT_FOUND = problemResponse(404, 'No customer user with this id in the selected account (`not_found`); platform staff and superusers are never addressable.');
const userIdParam = ApiParam({ name: 'user_id', format: 'uuid' });

@PublicApiController('users', 'Users')
export class UsersController {
  constructor(
    private readonly users: UsersService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Scopes('users:read')
  @ApiOperation({
    summary: 'List the customer users of the account',
    description: 'Active and deactivated customer users, oldest first. Platform staff and superusers never appear.',
  })
  @ApiPageResponse(UserDto)
  @ApiResponse(problemResponse(400, 'Invalid paging parameters (`validation_failed`, `invalid_cursor`).'))
  async list(@Req() request: AuthenticatedRequest, @Query() query: PageQueryDto, @CurrentAccount() accountId: AccountId): Promise<Page<UserDto>> {
    const page = this.paginator.start(request, query, BY_UUID);
    return this.paginator.finish(request, page, await this.users.list(accountId, page), (u) => u.id, UserDto.from);
  }

  @Get(':user_id')
  @Scopes('users:read')
  @userIdParam
  @ApiOperation({ summary: 'Get a customer user' })
  @ApiOkResponse({ type: UserDto })
  @ApiResponse(NOT_FOUND)
  async get(@CurrentAccount() accountId: AccountId, @UuidParam('user_id') userId: string): Promise<UserDto> {
    return UserDto.from(await this.users.get(accountId, userId));
  }

  @Patch(':user_id')
  @Scopes('users:write')
  @userIdParam
  @ApiOperation({
    summary: 'Update a user’s profile or role',
    description:
      'Changes only the fields sent: `full_name`, `phone`, `locale`, `role`. A company administrator’s profile can be edited but not its role.',
  })
  @ApiOkResponse({ type: UserDto })
  @ApiResponse(problemResponse(400, 'Unknown or read-only field, or invalid value (`validation_failed`).'))
  @ApiResponse(NOT_FOUND)
  @ApiResponse(
    problemResponse(409, '`role_not_assignable`: COMPANY_ADMIN cannot be granted. `company_admin_protected`: the role of a company administrator cannot be changed.'),
  )
  async update(@CurrentAccount() accountId: AccountId, @UuidParam('user_id') userId: string, @Body() body: UpdateUserDto): Promise<UserDto> {
    return UserDto.from(await this.users.update(accountId, userId, body));
  }

  @Delete(':user_id')
  @HttpCode(204)
  @Scopes('users:write')
  @userIdParam
  @ApiOperation({
    summary: 'Deactivate a user',
    description: 'Deactivates a regular customer user (`is_active` false, `deactivated_at` set); the user stays listed. Repeating it is a no-op.',
  })
  @ApiNoContentResponse({ description: 'Deactivated.' })
  @ApiResponse(NOT_FOUND)
  @ApiResponse(problemResponse(409, 'Company administrators are left untouched (`company_admin_protected`).'))
  async deactivate(@CurrentAccount() accountId: AccountId, @UuidParam('user_id') userId: string): Promise<void> {
    await this.users.deactivate(accountId, userId);
  }
}
