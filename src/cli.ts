import 'reflect-metadata';
import { loadConfig } from './config/configuration';

/** `node dist/cli.js <command> [options]`: JSON on stdout, a message on stderr and exit 1 on error. */
async function main(): Promise<void> {
  const config = loadConfig();
  const tracing = config.tracing.enabled ? await import('./tracing') : null;
  tracing?.startTracing(config.tracing);
  const { CommandFactory } = await import('nest-commander');
  const { CliModule } = await import('./cli/cli.module');
  const { ensureDatabase } = await import('./database/ensure-database');
  // `npm run demo` on a bare PostgreSQL: the database must exist before the CLI module connects.
  if (['demo:bootstrap', 'catalogue:demo'].includes(process.argv[2])) await ensureDatabase(config.db.url);
  const fail = (err: unknown): never => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  };
  await CommandFactory.run(CliModule.forRoot(config), {
    logger: ['error'],
    errorHandler: fail,
    serviceErrorHandler: fail,
    cliName: 'taste-cli',
  });
  await tracing?.stopTracing();
}

main().catch((err: unknown) => {
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
