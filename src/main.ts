import 'reflect-metadata';
import { createApp } from './bootstrap';
import { loadConfig } from './config/configuration';

async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createApp(config);
  await app.listen(config.app.port, '0.0.0.0');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
