import { Column, Entity } from 'typeorm';
import type { Role } from '@app/vocabulary';
import { TenantEntity } from './tenant-entity';

/** The token is never stored: only its SHA-256 hash. Revoked rows stay so the page can say so. */
@Entity('user_invitations')
export class UserInvitation extends TenantEntity {
  @Column() email: string;
  @Column({ name: 'full_name' }) fullName: string;
  @Column({ type: 'text' }) role: Role;
  @Column({ name: 'token_hash' }) tokenHash: string;
  @Column({ name: 'created_by_credential_id', type: 'uuid', nullable: true }) createdByCredentialId: string | null;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt: Date;
  @Column({ name: 'accepted_at', type: 'timestamptz', nullable: true }) acceptedAt: Date | null;
  @Column({ name: 'accepted_user_id', type: 'uuid', nullable: true }) acceptedUserId: string | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
}
