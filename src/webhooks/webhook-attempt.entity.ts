import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { DeliveryEvent } from './webhook.types';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** One HTTP attempt of a delivery: a row of GET /webhooks/{id}/deliveries. */
@Entity({ name: 'webhook_attempts' })
@Index('idx_webhook_attempts_endpoint_at', ['webhookId', 'at'])
@Index('idx_webhook_attempts_delivery', ['deliveryId'])
export class WebhookAttemptEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @Column({ name: 'webhook_id', type: 'uuid' }) webhookId!: string;
  @Column({ name: 'delivery_id', type: 'uuid' }) deliveryId!: string;
  @ManyToOne(() => WebhookDeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'FK_webhook_attempts_delivery' })
  delivery?: WebhookDeliveryEntity;
  @Column({ type: 'varchar', length: 32 }) event!: DeliveryEvent;
  @Column({ type: 'integer' }) attempt!: number;
  @Column({ type: 'timestamptz' }) at!: Date;
  @Column({ name: 'http_status', type: 'integer', nullable: true }) httpStatus!: number | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) error!: string | null;
  @Column({ type: 'boolean' }) succeeded!: boolean;
}
