import { DynamicModule, Module, ModuleMetadata, Provider } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { HEALTH_CHECKS } from './health.tokens';

@Module({})
export class HealthModule {
  /** `checks` is a provider of `ReadinessCheck[]` under HEALTH_CHECKS (defaults to none). */
  static forRoot(imports: ModuleMetadata['imports'] = [], checks?: Provider): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'json', logger: false }), ...imports],
      controllers: [HealthController],
      providers: [checks ?? { provide: HEALTH_CHECKS, useValue: [] }],
    };
  }
}
