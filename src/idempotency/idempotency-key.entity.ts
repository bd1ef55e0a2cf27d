import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';
import { OrganizationEntity } from '../organizations/organization.entity';

/**
 * An `Idempotency-Key` of one organization: claimed (`processing`) by the first request in one INSERT
 * (the primary key makes a parallel claim fail), then completed with the response to replay, or
 * deleted when the first request failed. Rows past `expires_at` are ignored and swept.
 */
@Entity({ name: 'idempotency_keys' })
@Index('idx_idempotency_keys_expires', ['expiresAt'])
@Check('CHK_idempotency_keys_state', `"state" IN ('processing', 'completed')`)
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'org_id', type: 'uuid', primaryKeyConstraintName: 'PK_idempotency_keys' })
  orgId!: string;
  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'org_id', foreignKeyConstraintName: 'FK_idempotency_keys_org' })
  organization?: OrganizationEntity;
  @PrimaryColumn({ type: 'varchar', length: 255, primaryKeyConstraintName: 'PK_idempotency_keys' })
  key!: string;
  /** Which operation the key was used for (`POST /cores` and MCP create_core share one). */
  @Column({ type: 'varchar', length: 32 }) scope!: string;
  /** SHA-256 (hex) of the canonical JSON of the request body. */
  @Column({ name: 'request_hash', type: 'char', length: 64 }) requestHash!: string;
  @Column({ type: 'varchar', length: 16 }) state!: 'processing' | 'completed';
  @Column({ name: 'response_status', type: 'integer', nullable: true }) responseStatus!: number | null;
  /** `json`, not `jsonb`: kept as written, so a replay is the first response byte for byte (key order). */
  @Column({ name: 'response_body', type: 'json', nullable: true }) responseBody!: unknown;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt!: Date;
}
