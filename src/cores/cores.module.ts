import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { JobsModule } from '../jobs/jobs.module';
import { StorageModule } from '../storage';
import { TasteModule } from '../taste/taste.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { CoreGenerationProcessor } from './core-generation.processor';
import { CoreGenerationService } from './core-generation.service';
import { CoreImageEntity } from './core-image.entity';
import { CoreImagesService } from './core-images.service';
import { CoreEntity } from './core.entity';
import { CoresController } from './cores.controller';
import { CoresRepository } from './cores.repository';
import { CoresService } from './cores.service';
import { FaultInjector } from '../common/fault-injection';
import { GenerationReconciler } from './generation-reconciler.service';
import { OrphanSweeper } from './orphan-sweeper.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([CoreEntity, CoreImageEntity]),
    JobsModule,
    StorageModule,
    AuditModule,
    TasteModule,
    WebhooksModule,
    IdempotencyModule,
  ],
  controllers: [CoresController],
  providers: [
    CoresRepository,
    CoreImagesService,
    CoresService,
    CoreGenerationService,
    FaultInjector,
    // Upkeep loops; they run only in processes with the worker role (ROLE=all or worker).
    GenerationReconciler,
    OrphanSweeper,
  ],
  exports: [CoresService, CoreGenerationService, GenerationReconciler, OrphanSweeper],
})
export class CoresModule {}

/** Imported only when the process runs the worker role (`ROLE=worker` or `all`). */
@Module({
  imports: [CoresModule],
  providers: [CoreGenerationProcessor],
})
export class CoreGenerationWorkerModule {}
