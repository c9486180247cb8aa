import { ApiProperty } from '@nestjs/swagger';
import type { User } from '@app/database';
import { ROLE_VALUES, type Role } from '@app/vocabulary';

/** A customer user. Never carries the password hash or the platform flags. */
export class UserDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'email', example: 'ayse.kaya@polar-pharma.example' }) email: string;
  @ApiProperty({ example: 'Ayşe Kaya' }) full_name: string;
  @ApiProperty({ type: String, nullable: true, description: 'E.164', example: '+905321234567' }) phone: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'BCP 47 language tag', example: 'tr-TR' }) locale: string | null;
  @ApiProperty({ enum: ROLE_VALUES }) role: Role;
  @ApiProperty({ description: 'False once the user is deactivated.' }) is_active: boolean;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deactivated_at: string | null;

  static from(user: User): UserDto {
    return {
      id: user.id,
      email: user.email,
      full_name: user.fullName,
      phone: user.phone,
      locale: user.locale,
      role: user.role as Role,
      is_active: user.isActive,
      created_at: user.createdAt.toISOString(),
      updated_at: user.updatedAt.toISOString(),
      deactivated_at: user.deactivatedAt ? user.deactivatedAt.toISOString() : null,
    };
  }
}
