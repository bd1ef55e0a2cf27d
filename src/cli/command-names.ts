/**
 * The admin CLI's commands (their `@Command` names). `cli.ts` connects to PostgreSQL only for one of
 * these: a misspelt command is told so at once, even when the database is down, instead of after ten
 * connection attempts. A test checks this list against the commands `--help` prints.
 */
export const CLI_COMMAND_NAMES: readonly string[] = [
  'org:create',
  'key:create',
  'key:revoke',
  'key:list',
  'audit:list',
  'demo:bootstrap',
  'user:create',
  'catalogue:import',
  'catalogue:demo',
  'migration:run',
  'storage:init',
];
