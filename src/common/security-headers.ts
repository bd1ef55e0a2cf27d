import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { RequestHandler } from 'express';
import { AllConfig } from '../config/configuration';

const HSTS_MAX_AGE_SECONDS = 180 * 24 * 3600;

type HeaderList = readonly (readonly [string, string])[];

/**
 * The headers a helmet middleware sets, captured once: with the static options used here they are
 * the same on every response, so each request only copies them instead of running helmet's twelve
 * middlewares (docs/decisions/0026-lean-request-path.md).
 */
function helmetHeaders(options: Parameters<typeof helmet>[0]): HeaderList {
  const headers: [string, string][] = [];
  const res = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  let done = false;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error(String(err));
    done = true;
  });
  if (!done) throw new Error('helmet did not finish synchronously: its headers cannot be precomputed');
  return headers;
}

/**
 * helmet for every response. The dashboard replaces the Content-Security-Policy with its own
 * stricter one (dashboard.module.ts); Swagger UI at /api/docs loads its scripts from 'self' and
 * uses inline styles, which helmet's default policy allows. HSTS only when the public address is
 * https: over plain http browsers ignore it, and a misconfigured http deployment would be locked out.
 * Images under /images are meant to be embedded by client sites: cross-origin resource policy.
 */
/**
 * Lower-case names of the headers {@link securityHeaders} sets: the same on every response, so the
 * request log leaves them out.
 */
export const STATIC_SECURITY_HEADERS = new Set(
  [...helmetHeaders({ strictTransportSecurity: { maxAge: 1 } }), ...helmetHeaders({})].map(([name]) =>
    name.toLowerCase(),
  ),
);

export function securityHeaders(config: AllConfig): RequestHandler {
  const https = config.app.publicBaseUrl.startsWith('https://');
  const strictTransportSecurity = https
    ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: true }
    : (false as const);
  const base = helmetHeaders({ strictTransportSecurity });
  const embeddable = helmetHeaders({
    strictTransportSecurity,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
  return (req, res, next) => {
    const headers = req.path.startsWith('/images/') ? embeddable : base;
    for (const [name, value] of headers) res.setHeader(name, value);
    res.removeHeader('X-Powered-By');
    next();
  };
}
