import { Get } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { Scopes } from '../auth/auth.decorators';
import { ApiPageResponse, type Page } from '../common/paging';
import { PublicApiController } from '../common/public-api-controller';
import { RoleDto } from './dto/role.dto';
import { ROLES } from '@app/vocabulary';

@PublicApiController('roles', 'Users')
export class RolesController {
  @Get()
  @Scopes('users:read')
  @ApiOperation({
    summary: 'List the roles a user can have',
    description: 'Every role with a display name for user interfaces. `COMPANY_ADMIN` exists but is not assignable through the API. The list is a single page.',
  })
  @ApiPageResponse(RoleDto)
  list(): Page<RoleDto> {
    return { data: ROLES.map(RoleDto.from), links: { next: null } };
  }
}
