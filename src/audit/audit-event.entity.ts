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

export type ActorType = 'api_key' | 'user' | 'cli';

/** Append-only: the migration installs a trigger that refuses UPDATE. */
@Entity({ name: 'audit_events' })
@Index('idx_audit_events_org_time', ['orgId', 'createdAt'])
export class AuditEventEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'org_id', foreignKeyConstraintName: 'FK_audit_events_org' })
  organization?: OrganizationEntity;
  @Column({ name: 'actor_type', type: 'varchar', length: 16 }) actorType!: ActorType;
  @Column({ name: 'actor_id', type: 'varchar', length: 64, nullable: true }) actorId!: string | null;
  @Column({ name: 'actor_label', type: 'varchar', length: 255 }) actorLabel!: string;
  @Column({ type: 'varchar', length: 64 }) action!: string;
  @Column({ name: 'target_type', type: 'varchar', length: 32, nullable: true }) targetType!: string | null;
  @Column({ name: 'target_id', type: 'varchar', length: 64, nullable: true }) targetId!: string | null;
  @Column({ type: 'jsonb', default: () => "'{}'" }) metadata!: Record<string, unknown>;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
