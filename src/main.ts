import 'reflect-metadata';
import { loadConfig } from './config/configuration';

/**
 * `ROLE=all` (default): API and worker; `ROLE=api`: HTTP only; `ROLE=worker`: processors only.
 * The configuration is checked first (production start rules: exit 1 naming the variable), then
 * tracing starts when configured, before any instrumented module is loaded.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const tracing = config.tracing.enabled ? await import('./tracing') : null;
  tracing?.startTracing(config.tracing);
  const { runProcess } = await import('./bootstrap');
  await runProcess(config, async () => tracing?.stopTracing());
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
