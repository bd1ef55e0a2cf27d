import './require-node';
import 'reflect-metadata';
import { loadConfig } from './config/configuration';

/** The worker alone, whatever ROLE says (`npm run start:worker`); see main.ts. */
async function main(): Promise<void> {
  const config = loadConfig();
  config.app.role = 'worker';
  const tracing = config.tracing.enabled ? await import('./tracing') : null;
  tracing?.startTracing(config.tracing);
  const { runProcess } = await import('./bootstrap');
  await runProcess(config, async () => tracing?.stopTracing());
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
