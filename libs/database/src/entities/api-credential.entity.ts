import { Column, Entity, JoinTable, ManyToMany, ManyToOne, JoinColumn } from 'typeorm';
import { Account } from './account.entity';
import { UuidEntity } from './base';

/** An OAuth2 client-credentials integration. The secret is stored only as an scrypt hash. */
@Entity('api_credentials')
export class ApiCredential extends UuidEntity {
  @Column({ name: 'client_id', unique: true }) clientId: string;
  @Column({ name: 'secret_hash' }) secretHash: string;
  @Column() name: string;
  @Column({ type: 'text', array: true }) scopes: string[];
  @Column({ name: 'owner_account_id', type: 'uuid', nullable: true }) ownerAccountId: string | null;
  @ManyToOne(() => Account, { nullable: true, onDelete: 'SET NULL' })
  @JoinColumn({ name: 'owner_account_id' })
  ownerAccount?: Account | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true }) lastUsedAt: Date | null;

  @ManyToMany(() => Account)
  @JoinTable({
    name: 'api_credential_accounts',
    joinColumn: { name: 'credential_id', referencedColumnName: 'id' },
    inverseJoinColumn: { name: 'account_id', referencedColumnName: 'id' },
  })
  accounts?: Account[];
}
