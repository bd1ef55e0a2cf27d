import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  OneToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type ProductGender = 'women' | 'men' | 'unisex';

/**
 * One row of the global product catalogue (not per organization), keyed by the feed's `id`.
 * Colour features are the OKLab coordinates of the primary colour named in the feed's `color`.
 */
@Entity({ name: 'products' })
export class ProductEntity {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Index('uq_products_external_id', { unique: true })
  @Column({ name: 'external_id', type: 'varchar', length: 255 })
  externalId!: string;
  @Column({ type: 'varchar', length: 500 }) title!: string;
  @Column({ type: 'varchar', length: 255 }) designer!: string;
  @Column({ type: 'text' }) description!: string;
  @Column({ type: 'numeric', precision: 12, scale: 2 }) price!: string;
  @Column({ type: 'varchar', length: 3 }) currency!: string;
  @Column({ type: 'varchar', length: 2048 }) url!: string;
  @Column({ name: 'media_url', type: 'varchar', length: 2048 }) mediaUrl!: string;
  @Column({ name: 'media_url_alt', type: 'varchar', length: 2048, nullable: true }) mediaUrlAlt!:
    string | null;
  @Column({ type: 'varchar', length: 8 }) gender!: ProductGender;
  @Column({ type: 'varchar', length: 100, nullable: true }) colour!: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) material!: string | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) pattern!: string | null;
  @Column({ type: 'varchar', length: 500, nullable: true }) category!: string | null;
  @Column({ type: 'varchar', length: 32, nullable: true }) availability!: string | null;
  @Column({ name: 'colour_l', type: 'real', nullable: true }) colourL!: number | null;
  @Column({ name: 'colour_a', type: 'real', nullable: true }) colourA!: number | null;
  @Column({ name: 'colour_b', type: 'real', nullable: true }) colourB!: number | null;
  @Column({ name: 'colour_family', type: 'varchar', length: 32, nullable: true }) colourFamily!:
    string | null;
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' }) updatedAt!: Date;
}

/**
 * The narrow search projection of a product (see docs/decisions/0004-product-ranking.md): only what the
 * candidate query filters and ranks on, with a weighted tsvector behind a GIN index. Rows are written by
 * statement-level triggers on `products` (migration 1763769700000), never by the application.
 */
@Entity({ name: 'product_search' })
@Index('idx_product_search_colour', { synchronize: false }) // GiST on the OKLab point (migration 1763769900000)
export class ProductSearchEntity {
  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'PK_product_search' })
  productId!: string;
  @OneToOne(() => ProductEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'FK_product_search_product' })
  product?: ProductEntity;
  @Column({ type: 'varchar', length: 8 }) gender!: ProductGender;
  @Column({ type: 'numeric', precision: 12, scale: 2 }) price!: string;
  @Column({ name: 'colour_l', type: 'real', nullable: true }) colourL!: number | null;
  @Column({ name: 'colour_a', type: 'real', nullable: true }) colourA!: number | null;
  @Column({ name: 'colour_b', type: 'real', nullable: true }) colourB!: number | null;
  /** Title and designer (A), colour, colour family, material, pattern and category (B), description (D). */
  @Index('idx_product_search_search', { synchronize: false })
  @Column({ type: 'tsvector', select: false, insert: false, update: false })
  search!: string;
}
