import * as nodeModule from 'node:module';

/**
 * Node 22's on-disk cache of compiled code (in the system's temporary directory): the CLI loads about
 * 1,500 modules for one command, and compiling them is a fifth of its start-up CPU (docs/decisions/0029).
 * Imported first by the CLI entry point; a Node without it just compiles as before.
 */
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
