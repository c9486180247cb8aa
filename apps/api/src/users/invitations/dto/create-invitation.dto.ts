import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsString, Length, MaxLength } from 'class-validator';
import { ROLE_VALUES, type Role } from '@app/vocabulary';

export class CreateInvitationDto {
  @ApiProperty({ format: 'email', maxLength: 254, example: 'mehmet.demir@polar-pharma.example', description: 'Stored in lower case.' })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Mehmet Demir' }) @IsString() @Length(1, 200) full_name: string;

  @ApiProperty({ enum: ROLE_VALUES, example: 'OPERATOR', description: 'An assignable role; `COMPANY_ADMIN` is refused (409 `role_not_assignable`).' })
  @IsIn(ROLE_VALUES)
  role: Role;
}
