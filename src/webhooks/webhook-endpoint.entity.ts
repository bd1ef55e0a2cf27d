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
import type { WebhookEvent } from './webhook.types';

/**
 * A receiver of an organization's events. The signing secret is kept (it has to sign every
 * delivery) but never selected unless asked for (`select: false`), returned only by the create call
 * and never logged.
 */
@Entity({ name: 'webhook_endpoints' })
@Index('idx_webhook_endpoints_org_created', ['orgId', 'createdAt'])
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'org_id', foreignKeyConstraintName: 'FK_webhook_endpoints_org' })
  organization?: OrganizationEntity;
  @Column({ type: 'varchar', length: 2048 }) url!: string;
  @Column({ type: 'text', array: true }) events!: WebhookEvent[];
  @Column({ type: 'varchar', length: 255, nullable: true }) description!: string | null;
  @Column({ type: 'varchar', length: 128, select: false }) secret?: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
