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
import type { GenerationStatus } from './job.types';

/** A taste generation job, visible through GET /jobs/{jobId}. Deleted with its core. */
@Entity({ name: 'jobs' })
@Index('idx_jobs_core', ['coreId', 'createdAt'])
@Index('idx_jobs_processing', ['createdAt'], { where: `"status" = 'processing'` })
@Check('CHK_jobs_status', `"status" IN ('processing', 'ready', 'failed')`)
export class JobEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @Column({ name: 'core_id', type: 'uuid' }) coreId!: string;
  // The core by entity name, not by class: jobs/ does not import cores/ (cores depends on jobs).
  @ManyToOne('CoreEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'core_id', foreignKeyConstraintName: 'FK_jobs_core' })
  core?: unknown;
  @Column({ type: 'varchar', length: 16 }) status!: GenerationStatus;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ type: 'integer', default: 0 }) attempts!: number;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'started_at', type: 'timestamptz', nullable: true }) startedAt!: Date | null;
  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true }) finishedAt!: Date | null;
}
