import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { DashboardUserEntity } from './dashboard-user.entity';
import { DashboardUsersRepository } from './dashboard-users.repository';
import { DashboardUsersService } from './dashboard-users.service';

/** Dashboard people, usable without HTTP or Redis (the CLI's `user:create`, `demo:bootstrap`). */
@Module({
  imports: [TypeOrmModule.forFeature([DashboardUserEntity]), AuditModule],
  providers: [DashboardUsersRepository, DashboardUsersService],
  exports: [DashboardUsersService],
})
export class DashboardUsersModule {}
