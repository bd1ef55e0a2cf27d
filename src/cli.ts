import './compile-cache';
import 'reflect-metadata';
import { loadConfig } from './config/configuration';

/** `node dist/cli.js <command> [options]`: JSON on stdout, a message on stderr and exit 1 on error. */
async function main(): Promise<void> {
  const config = loadConfig();
  const tracing = config.tracing.enabled ? await import('./tracing') : null;
  tracing?.startTracing(config.tracing);
  // An import without image analysis starts the import's modules only, without nest-commander
  // (docs/decisions/0029, 0032).
  const [command, ...args] = process.argv.slice(2);
  if (command === 'catalogue:import' && !args.some((a) => ['--analyse-images', '--help', '-h'].includes(a))) {
    await (await import('./cli/catalogue-import-cli.module')).runCatalogueImport(config, args);
    await tracing?.stopTracing();
    return;
  }
  const { CommandFactory } = await import('nest-commander');
  const cliModule = (await import('./cli/cli.module')).CliModule.forRoot(config);
  const { ensureDatabase } = await import('./database/ensure-database');
  // `npm run demo` on a bare PostgreSQL: the database must exist before the CLI module connects.
  if (['demo:bootstrap', 'catalogue:demo'].includes(process.argv[2])) await ensureDatabase(config.db.url);
  const fail = (err: unknown): never => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  };
  await CommandFactory.run(cliModule, {
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
