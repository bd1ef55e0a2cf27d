import './require-node';
import 'reflect-metadata';
import { loadConfig } from './config/configuration';

/**
 * `ROLE=all` (default): API and worker; `ROLE=api`: HTTP only; `ROLE=worker`: processors only.
 * The configuration is checked first (production start rules: exit 1 naming the variable), then
 * tracing starts when configured, before any instrumented module is loaded.
 * `--demo` (what `npm run demo` passes): once listening, issue a demo key and sign-in and print them
 * after the banner.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const tracing = config.tracing.enabled ? await import('./tracing') : null;
  tracing?.startTracing(config.tracing);
  const { runProcess } = await import('./bootstrap');
  const { app, http } = await runProcess(config, async () => tracing?.stopTracing());
  if (!http) return;
  const [
    { ApiKeysService },
    { bootstrapDemo },
    { DashboardUsersService },
    { OrganizationsService },
    { startupBanner },
  ] = await Promise.all([
    import('./auth/api-keys.service'),
    import('./cli/demo.command'),
    import('./dashboard/dashboard-users.service'),
    import('./organizations/organizations.service'),
    import('./startup-banner'),
  ]);
  const demo = process.argv.includes('--demo')
    ? await bootstrapDemo(
        app.get(OrganizationsService),
        app.get(ApiKeysService),
        app.get(DashboardUsersService),
      )
    : undefined;
  process.stdout.write(startupBanner(config.app.publicBaseUrl, demo));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
