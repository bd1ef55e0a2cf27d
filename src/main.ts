import 'reflect-metadata';
import { createApp, startWorker } from './bootstrap';
import { loadConfig } from './config/configuration';

/** `ROLE=all` (default): API and worker; `ROLE=api`: HTTP only; `ROLE=worker`: processors only. */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.app.role === 'worker') {
    await startWorker(config);
    return;
  }
  const app = await createApp(config);
  await app.listen(config.app.port, '0.0.0.0');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
