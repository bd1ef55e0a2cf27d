import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import type { DeliveryEvent, DeliveryState } from './webhook.types';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/**
 * One event for one endpoint. Its id is the `webhook-id` header of every attempt, and `payload` the
 * exact body sent on every attempt. Written in the transaction that commits the event (an outbox
 * row), so an event is never lost between the commit and the queue. Deleted with its endpoint.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('idx_webhook_deliveries_pending', ['state', 'createdAt'])
@Check('CHK_webhook_deliveries_state', `"state" IN ('pending', 'succeeded', 'failed')`)
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @Column({ name: 'webhook_id', type: 'uuid' }) webhookId!: string;
  @ManyToOne(() => WebhookEndpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'FK_webhook_deliveries_endpoint' })
  endpoint?: WebhookEndpointEntity;
  @Column({ type: 'varchar', length: 32 }) event!: DeliveryEvent;
  @Column({ type: 'text' }) payload!: string;
  @Column({ type: 'varchar', length: 16, default: 'pending' }) state!: DeliveryState;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
