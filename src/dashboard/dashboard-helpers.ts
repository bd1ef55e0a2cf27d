import { HttpException } from '@nestjs/common';
import type { Request } from 'express';
import { newCsrfToken } from './csrf';
import { DashboardViewer } from './dashboard-session';
import { NavSection, PageBase } from './dashboard-views';
import { isUserError, userErrorText } from './user-error';

/** Session lifecycle, page layout fields and form-action outcomes shared by the dashboard's controllers. */

export type Flash = NonNullable<PageBase['flash']>;

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
export function takeFlash(req: Request): Flash | null {
  const flash = req.session?.flash ?? null;
  if (flash) delete req.session.flash;
  return flash;
}

/** The layout fields of a signed-in page (the one-shot notice is taken here). */
export function base(req: Request, viewer: DashboardViewer, title: string, active: NavSection): PageBase {
  return { title, active, viewer, csrfToken: viewer.csrfToken, flash: takeFlash(req) };
}

/** A user error as the page shows it: its status and the dashboard's words for it (user-error.ts). */
export interface UserError {
  status: number;
  text: string;
  exception: HttpException;
}

export type ActionOutcome<T> = { value: T; error: null } | { value: null; error: UserError };

/**
 * Runs a form's action: a user error (isUserError: a 4xx other than 404) is returned to be shown on the
 * page, anything else is thrown to DashboardExceptionFilter's error page.
 */
export async function runAction<T>(action: () => Promise<T>): Promise<ActionOutcome<T>> {
  try {
    return { value: await action(), error: null };
  } catch (err: unknown) {
    if (!isUserError(err)) throw err;
    return { value: null, error: { status: err.getStatus(), text: userErrorText(err), exception: err } };
  }
}

/** What a form action (post/redirect/get, see FormAction) answers: where to go and the notice shown there. */
export interface FormOutcome {
  url: string;
  flash: Flash;
}

/** The action's notice, or its user error as an error notice. */
export async function actionNotice<T>(action: () => Promise<T>, notice: (value: T) => Flash): Promise<Flash> {
  const { value, error } = await runAction(action);
  return error ? { kind: 'error', text: error.text } : notice(value as T);
}
