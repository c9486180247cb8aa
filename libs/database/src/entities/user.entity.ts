import { Column, Entity } from 'typeorm';
import type { Role , AccountId } from '@app/vocabulary';
import { UuidEntity } from './base';

/**
 * A person. Customer users belong to an account and have a role; platform staff and superusers
 * live in the same table but are never exposed or modified through the public API.
 */
@Entity('users')
export class User extends UuidEntity {
  @Column({ name: 'account_id', type: 'uuid', nullable: true }) accountId: AccountId | null;
  @Column() email: string;
  @Column({ name: 'full_name' }) fullName: string;
  @Column({ type: 'text', nullable: true }) phone: string | null;
  @Column({ type: 'text', nullable: true }) locale: string | null;
  @Column({ type: 'text', nullable: true }) role: Role | null;
  @Column({ name: 'is_active' }) isActive: boolean;
  @Column({ name: 'is_platform_staff' }) isPlatformStaff: boolean;
  @Column({ name: 'is_superuser' }) isSuperuser: boolean;
  @Column({ name: 'password_hash', type: 'text', nullable: true }) passwordHash: string | null;
  @Column({ name: 'deactivated_at', type: 'timestamptz', nullable: true }) deactivatedAt: Date | null;
}
