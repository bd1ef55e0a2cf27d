import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CoresModule } from '../cores/cores.module';
import { StorageModule } from '../storage';
import { TasteModule } from '../taste/taste.module';
import { CatalogueImportService, IMAGE_COLOUR_ANALYSER } from './catalogue-import.service';
import { CatalogueWriter } from './catalogue-writer';
import { DemoCatalogueService } from './demo-catalogue.service';
import { ProductImageAnalyser } from './product-image-analyser.service';
import { ColourCellEntity, ProductEntity } from './product.entity';
import { ProductsController } from './products.controller';
import { ProductsRepository } from './products.repository';
import { ProductsService } from './products.service';

/**
 * The catalogue without search: import and demo catalogue. The admin CLI imports this one, so loading a
 * feed needs neither the cores module nor its queues.
 */
@Module({
  imports: [TypeOrmModule.forFeature([ProductEntity, ColourCellEntity]), StorageModule, TasteModule],
  providers: [
    ProductsRepository,
    CatalogueWriter,
    CatalogueImportService,
    DemoCatalogueService,
    ProductImageAnalyser,
    { provide: IMAGE_COLOUR_ANALYSER, useExisting: ProductImageAnalyser },
  ],
  exports: [ProductsRepository, CatalogueWriter, CatalogueImportService, DemoCatalogueService],
})
export class ProductsCatalogueModule {}

/** The catalogue plus `POST /cores/{id}/products`: matching a ready core against the products. */
@Module({
  imports: [ProductsCatalogueModule, CoresModule],
  controllers: [ProductsController],
  providers: [ProductsService],
  exports: [ProductsService, ProductsCatalogueModule],
})
export class ProductsModule {}
