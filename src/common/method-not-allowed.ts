import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';

/**
 * Nest registers its global middleware on this catch-all route, so every request passes through
 * it; a request no controller matched still carries it as `req.route` at the end.
 */
const NEST_CATCH_ALL = '{/*splat}';

/**
 * The path template of the controller route that took the request (`/api/v1/org/cores/:id`), or null
 * when none did (no route, or only Nest's middleware catch-all).
 */
export function controllerRoute(req: IncomingMessage): string | null {
  const r = req as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
  const path = r.route?.path;
  return typeof path === 'string' && path !== NEST_CATCH_ALL ? (r.baseUrl ?? '') + path : null;
}

/** What this module reads of Express's router (`router` 2, Express 5): its layers and their routes. */
interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  /** The path's match, or false; pure in `router` 2 (it stores nothing on the layer). */
  match(path: string): unknown;
}

/**
 * The methods the app's controller routes answer on a request's path, for a request none took (RFC
 * 9110 section 15.5.6: a path that exists under other methods is a 405 with `Allow`, not a 404, which
 * contract testers such as Schemathesis check). Upper case, sorted, `HEAD` wherever `GET` is;
 * empty when no route has the path. Read from the router itself, so paths match as dispatch does.
 * A catch-all of every method (`@All`, Nest's middleware route) takes any method, so it adds none.
 */
export function allowedMethods(req: Request): string[] {
  const stack = (req.app as unknown as { router?: { stack?: RouterLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || layer.route.path === NEST_CATCH_ALL || !layer.match(req.path)) continue;
    for (const [method, on] of Object.entries(layer.route.methods)) {
      if (!on || method === '_all') continue;
      methods.add(method.toUpperCase());
      if (method === 'get') methods.add('HEAD');
    }
  }
  return [...methods].sort();
}
