import helmet from 'helmet';
import type { RequestHandler } from 'express';
import { AllConfig } from '../config/configuration';

const HSTS_MAX_AGE_SECONDS = 180 * 24 * 3600;

/**
 * helmet for every response. The dashboard replaces the Content-Security-Policy with its own
 * stricter one (dashboard.module.ts); Swagger UI at /api/docs loads its scripts from 'self' and
 * uses inline styles, which helmet's default policy allows. HSTS only when the public address is
 * https: over plain http browsers ignore it, and a misconfigured http deployment would be locked out.
 * Images under /images are meant to be embedded by client sites: cross-origin resource policy.
 */
export function securityHeaders(config: AllConfig): RequestHandler {
  const https = config.app.publicBaseUrl.startsWith('https://');
  const base = helmet({
    strictTransportSecurity: https ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: true } : false,
  });
  const embeddable = helmet({
    strictTransportSecurity: https ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: true } : false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
  });
  return (req, res, next) => (req.path.startsWith('/images/') ? embeddable : base)(req, res, next);
}
