import { ApiProperty } from '@nestjs/swagger';
import type { UserInvitation } from '@app/database';
import { ROLE_VALUES, type Role } from '@app/vocabulary';

export const INVITATION_STATUSES = ['pending', 'accepted', 'expired'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];

export function invitationStatus(invitation: UserInvitation, now = new Date()): InvitationStatus {
  if (invitation.acceptedAt) return 'accepted';
  return invitation.expiresAt <= now ? 'expired' : 'pending';
}

/** An invitation as the API shows it: the token is never part of it. */
export class InvitationDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty({ example: 'Mehmet Demir' }) full_name: string;
  @ApiProperty({ enum: ROLE_VALUES }) role: Role;
  @ApiProperty({ enum: INVITATION_STATUSES, description: 'Derived when read: accepted once the password was set; expired 7 days after creation.' })
  status: InvitationStatus;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) expires_at: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) accepted_at: string | null;

  static from(invitation: UserInvitation): InvitationDto {
    return {
      id: invitation.id,
      email: invitation.email,
      full_name: invitation.fullName,
      role: invitation.role,
      status: invitationStatus(invitation),
      created_at: invitation.createdAt.toISOString(),
      expires_at: invitation.expiresAt.toISOString(),
      accepted_at: invitation.acceptedAt ? invitation.acceptedAt.toISOString() : null,
    };
  }
}
