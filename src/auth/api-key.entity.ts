import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { OrganizationEntity } from '../organizations/organization.entity';

/** Longest API key name (the column's length; the CLI and the dashboard form keep to it). */
export const MAX_KEY_NAME_LENGTH = 100;

@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Index('idx_api_keys_org') @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'org_id', foreignKeyConstraintName: 'FK_api_keys_org' })
  organization?: OrganizationEntity;
  @Column({ type: 'varchar', length: MAX_KEY_NAME_LENGTH }) name!: string;
  /** Short, non-secret display prefix such as `tpk_AbC1x9Qz`. */
  @Column({ type: 'varchar', length: 16 }) prefix!: string;
  /** HMAC-SHA-256(pepper, key), hex. The key itself is never stored. */
  @Index('uq_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'char', length: 64 })
  keyHash!: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true }) lastUsedAt!: Date | null;
  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true }) revokedAt!: Date | null;
}
