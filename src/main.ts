import 'reflect-metadata';
import { ApiKeysService } from './auth/api-keys.service';
import { createApp, startWorker } from './bootstrap';
import { bootstrapDemo } from './cli/demo.command';
import { loadConfig } from './config/configuration';
import { DashboardUsersService } from './dashboard/dashboard-users.service';
import { startupBanner } from './startup-banner';

/**
 * `ROLE=all` (default): API and worker; `ROLE=api`: HTTP only; `ROLE=worker`: processors only.
 * `--demo` (what `npm run demo` passes): once listening, issue a demo key and sign-in and print them
 * after the banner.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  if (config.app.role === 'worker') {
    await startWorker(config);
    return;
  }
  const app = await createApp(config);
  await app.listen(config.app.port, '0.0.0.0');
  const demo = process.argv.includes('--demo')
    ? await bootstrapDemo(app.get(ApiKeysService), app.get(DashboardUsersService))
    : undefined;
  process.stdout.write(startupBanner(config.app.publicBaseUrl, demo));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
