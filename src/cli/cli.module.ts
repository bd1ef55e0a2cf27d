import { DynamicModule, Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthCoreModule } from '../auth/auth.module';
import { AppConfigModule } from '../config/config.module';
import { AllConfig } from '../config/configuration';
import { DatabaseModule } from '../database/database.module';
import { DemoBootstrapCommand } from './demo.command';
import { ORG_COMMANDS } from './org.commands';

/** The admin CLI shares the application's modules (services only, no HTTP). */
@Module({})
export class CliModule {
  static forRoot(config: AllConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [AppConfigModule.forRoot(config), DatabaseModule, AuditModule, AuthCoreModule],
      providers: [...ORG_COMMANDS, DemoBootstrapCommand],
    };
  }
}
