import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { CoreEntity } from './core.entity';

@Entity({ name: 'core_images' })
@Index('idx_core_images_core', ['coreId', 'position'])
@Index('idx_core_images_storage_key', ['storageKey'])
export class CoreImageEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column({ name: 'core_id', type: 'uuid' }) coreId!: string;
  @ManyToOne(() => CoreEntity, (core) => core.images, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'core_id', foreignKeyConstraintName: 'FK_core_images_core' })
  // Relation<>: the two entities import each other, and the property's type must not be read while
  // the other module is still loading (decorator metadata under SWC, the test suite's transpiler).
  core?: Relation<CoreEntity>;
  @Column({ type: 'smallint' }) position!: number;
  @Column({ name: 'storage_key', type: 'varchar', length: 128 }) storageKey!: string;
  @Column({ type: 'text' }) url!: string;
  @Column({ type: 'text', nullable: true }) caption!: string | null;
  @Column({ name: 'content_type', type: 'varchar', length: 64 }) contentType!: string;
  @Column({ type: 'integer' }) bytes!: number;
  @Column({ type: 'integer' }) width!: number;
  @Column({ type: 'integer' }) height!: number;
  @Column({ type: 'char', length: 64 }) sha256!: string;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
