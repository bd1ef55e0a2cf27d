import type { Request } from 'express';
import { newCsrfToken } from './csrf';

/**
 * Issues a new session id (and CSRF token) for the user: no session fixation across sign-in. The
 * session remembers when it began and which password it was opened with.
 */
export function rotateSession(req: Request, user: { id: string; passwordVersion: string }): Promise<void> {
  // A session ended earlier in this request (expired, password changed) is recreated first.
  if (!req.session) req.sessionStore.generate(req);
  return new Promise((resolve, reject) => {
    req.session.regenerate((err: unknown) => {
      if (err) return reject(err instanceof Error ? err : new Error(String(err)));
      req.session.userId = user.id;
      req.session.signedInAt = Date.now();
      req.session.passwordVersion = user.passwordVersion;
      req.session.csrfToken = newCsrfToken();
      req.session.save((saveErr: unknown) =>
        saveErr ? reject(saveErr instanceof Error ? saveErr : new Error(String(saveErr))) : resolve(),
      );
    });
  });
}

export function destroySession(req: Request): Promise<void> {
  if (!req.session) return Promise.resolve();
  return new Promise((resolve) => req.session.destroy(() => resolve()));
}

/** Only local dashboard paths are accepted as a post-sign-in destination (no open redirect). */
export function safeNext(next: string | undefined): string {
  if (!next || !/^\/dashboard(\/|$|\?)/.test(next) || next.includes('\\') || next.startsWith('//')) {
    return '/dashboard';
  }
  return next;
}

/** Takes the one-shot notice stored by the previous request. */
export function takeFlash(req: Request): { kind: 'success' | 'error'; text: string } | null {
  const flash = req.session?.flash ?? null;
  if (flash) delete req.session.flash;
  return flash;
}
