import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  type Relation,
  UpdateDateColumn,
} from 'typeorm';
import { OrganizationEntity } from '../organizations/organization.entity';
import type { GenerationStatus } from '../jobs/job.types';
import type { PaletteColour } from '../taste/taste.types';
import { CoreImageEntity } from './core-image.entity';

/** The taste engine's palette colour, stored as generated (jsonb). */
export type StoredPaletteColour = PaletteColour;

@Entity({ name: 'cores' })
@Index('idx_cores_org_created', ['orgId', 'createdAt'])
@Index('idx_cores_search', { synchronize: false })
@Check('CHK_cores_status', `"status" IN ('processing', 'ready', 'failed')`)
export class CoreEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'org_id', type: 'uuid' }) orgId!: string;
  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'org_id', foreignKeyConstraintName: 'FK_cores_org' })
  organization?: OrganizationEntity;
  @Column({ type: 'varchar', length: 255 }) name!: string;
  @Column({ type: 'varchar', length: 16 }) status!: GenerationStatus;
  @Column({ type: 'text', nullable: true }) taste!: string | null;
  @Column({ name: 'style_attributes', type: 'text', array: true, default: () => "'{}'" })
  styleAttributes!: string[];
  @Column({ type: 'text', array: true, default: () => "'{}'" }) tags!: string[];
  @Column({ type: 'jsonb', default: () => "'[]'" }) palette!: StoredPaletteColour[];
  @Column({ type: 'text', array: true, default: () => "'{}'" }) patterns!: string[];
  @Column({ type: 'text', nullable: true }) error!: string | null;
  /** The newest generation job; results of any other job are discarded. */
  @Column({ name: 'current_job_id', type: 'uuid', nullable: true }) currentJobId!: string | null;
  /** Name, tags and style attributes with their synonyms; GIN expression index `idx_cores_search`. */
  @Column({ name: 'search_text', type: 'text', default: '' }) searchText!: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
  @OneToMany(() => CoreImageEntity, (image) => image.core) images?: Relation<CoreImageEntity[]>;
}
