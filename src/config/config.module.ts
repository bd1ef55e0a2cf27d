import { DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigModule as NestConfigModule } from '@nestjs/config';
import { AllConfig } from './configuration';

/**
 * Global typed configuration. The caller passes an already validated `AllConfig` (see
 * `loadConfig()`), so the HTTP app, the worker, the CLI and the tests share one code path.
 */
@Global()
@Module({})
export class AppConfigModule {
  static forRoot(config: AllConfig): DynamicModule {
    return {
      module: AppConfigModule,
      imports: [
        NestConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [() => ({ ...config })] }),
      ],
    };
  }
}
