import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { OrganizationsModule } from '../organizations/organizations.module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { ApiKeyRevocationListener } from './api-key-revocation.listener';
import { ApiKeyMiddleware } from './api-key.middleware';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { MeController } from './me.controller';
import { MeService } from './me.service';

/** Services only: the CLI imports this without the HTTP parts. */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), AuditModule, OrganizationsModule],
  providers: [ApiKeysRepository, ApiKeysService],
  exports: [ApiKeysService, OrganizationsModule],
})
export class AuthCoreModule {}

@Module({
  imports: [AuthCoreModule],
  controllers: [MeController],
  providers: [
    MeService,
    ApiKeyMiddleware,
    ApiKeyRevocationListener,
    { provide: APP_GUARD, useClass: ApiKeyGuard },
  ],
  exports: [AuthCoreModule],
})
export class AuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(ApiKeyMiddleware).forRoutes('api/v1/org', 'api/v1/org/*path', 'mcp');
  }
}
