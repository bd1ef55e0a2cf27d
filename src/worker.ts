import 'reflect-metadata';
import { startWorker } from './bootstrap';
import { loadConfig } from './config/configuration';

/** The worker alone, whatever ROLE says (`npm run start:worker`). */
async function main(): Promise<void> {
  const config = loadConfig();
  config.app.role = 'worker';
  await startWorker(config);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
