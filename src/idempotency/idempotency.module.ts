import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { HttpIdempotency, IdempotencyInterceptor } from './http-idempotency';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { IdempotencyService } from './idempotency.service';

/** `Idempotency-Key` storage (PostgreSQL) and its HTTP hooks (`@Idempotent()`, the throttler guard's claim). */
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [IdempotencyService, HttpIdempotency, IdempotencyInterceptor],
  exports: [IdempotencyService, HttpIdempotency, IdempotencyInterceptor],
})
export class IdempotencyModule {}
