import { Module } from '@nestjs/common';
import { CatalogueImportService } from './catalogue-import.service';
import { CatalogueWriter } from './catalogue-writer';

/**
 * The catalogue import alone, without image analysis, the demo catalogue or search: what
 * `catalogue:import` needs, so that the CLI loads and starts it in about half the time of the whole
 * catalogue module (docs/decisions/0029). `ProductsCatalogueModule` provides the same services with the
 * image analyser.
 */
@Module({
  providers: [CatalogueWriter, CatalogueImportService],
  exports: [CatalogueImportService],
})
export class CatalogueImportModule {}
