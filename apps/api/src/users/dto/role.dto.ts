import { ApiProperty } from '@nestjs/swagger';
import { ROLE_VALUES, type Role, type RoleDefinition } from '@app/vocabulary';

export class RoleDto {
  @ApiProperty({ enum: ROLE_VALUES, description: 'The value users carry in `role`.' }) role: Role;
  @ApiProperty({ example: 'Operator' }) display_name: string;
  @ApiProperty() description: string;
  @ApiProperty({ description: 'Whether the role can be given through the API (false for `COMPANY_ADMIN`).' }) assignable: boolean;

  static from(role: RoleDefinition): RoleDto {
    return { role: role.role, display_name: role.display_name, description: role.description, assignable: role.assignable };
  }
}
