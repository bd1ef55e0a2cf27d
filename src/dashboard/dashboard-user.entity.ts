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

export type DashboardRole = 'owner' | 'member';
export const DASHBOARD_ROLES: readonly DashboardRole[] = ['owner', 'member'];

/** A person who signs in to the organization dashboard. Emails are stored lowercased. */
@Entity({ name: 'dashboard_users' })
export class DashboardUserEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Index('idx_dashboard_users_org') @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'org_id', foreignKeyConstraintName: 'FK_dashboard_users_org' })
  organization?: OrganizationEntity;
  @Index('uq_dashboard_users_email', { unique: true })
  @Column({ type: 'varchar', length: 320 })
  email!: string;
  /** argon2id encoded hash (salt and parameters included). */
  @Column({ name: 'password_hash', type: 'varchar', length: 255 }) passwordHash!: string;
  @Column({ type: 'varchar', length: 16, default: 'member' }) role!: DashboardRole;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'last_sign_in_at', type: 'timestamptz', nullable: true }) lastSignInAt!: Date | null;
}
