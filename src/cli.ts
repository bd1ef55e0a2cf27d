import './require-node';
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
  const { CliLogger } = await import('./cli/cli-output');
  // Help runs no command: it needs neither PostgreSQL nor a migration, so it works before either is set up.
  // Nor does a word that is no command: commander names it (and the nearest command) without a database.
  const { CLI_COMMAND_NAMES } = await import('./cli/command-names');
  const helpOnly =
    command === undefined ||
    !CLI_COMMAND_NAMES.includes(command) ||
    process.argv.some((a) => a === '--help' || a === '-h');
  // `migration:run` applies the migrations itself, to report them: run at the connection (the default,
  // DB_MIGRATIONS_RUN=true) they were applied before it and it printed `{ "applied": [] }`.
  const db = helpOnly
    ? { ...config.db, connect: false }
    : command === 'migration:run'
      ? { ...config.db, migrationsRun: false }
      : config.db;
  const cliModule = (await import('./cli/cli.module')).CliModule.forRoot({ ...config, db });
  const { ensureDatabase } = await import('./database/ensure-database');
  // `npm run demo` on a bare PostgreSQL: the database must exist before the CLI module connects.
  if (!helpOnly && ['demo:bootstrap', 'catalogue:demo'].includes(process.argv[2]))
    await ensureDatabase(config.db.url);
  const fail = (err: unknown): never => {
    // commander's own ends (help shown, an unknown command or option) are printed by commander: exit
    // with its code only (0 for `--help`, 1 when no command was given or a word was wrong).
    const { code, exitCode } = (err ?? {}) as { code?: unknown; exitCode?: unknown };
    if (typeof code === 'string' && code.startsWith('commander.'))
      process.exit(typeof exitCode === 'number' ? exitCode : 1);
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${message}\n`);
    process.exit(1);
  };
  await CommandFactory.run(cliModule, {
    logger: new CliLogger(),
    abortOnError: false,
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
