import { HttpException } from '@nestjs/common';
import { errorReason } from '../common/domain-exception';
import { CoreNotReadyException } from '../cores/cores.exception';
import { httpErrorMessage } from '../common/http-exception.filter';

/**
 * The dashboard's wording for a domain reason whose REST message speaks to API clients (it names
 * endpoints to poll); any other error shows its REST message (docs/decisions/0038).
 */
const DASHBOARD_TEXT: Readonly<Record<string, string>> = {
  core_not_ready:
    'This core has no ready taste profile yet: search again once its status is ready (reload the core page to check).',
  enqueue_failed:
    'Taste generation could not be queued, so the core is marked failed: replace its images to try again.',
};

/** A 4xx other than 404 is shown on the page it came from; 404 and 5xx go to the error page. */
export function isUserError(err: unknown): err is HttpException {
  return (
    err instanceof HttpException && err.getStatus() >= 400 && err.getStatus() < 500 && err.getStatus() !== 404
  );
}

/** The text the dashboard shows for an HttpException: the one mapping of errors to dashboard words. */
export function userErrorText(err: HttpException): string {
  if (err instanceof CoreNotReadyException && err.coreStatus === 'failed') {
    return "This core's taste generation failed, which is final: replace its images to generate it again.";
  }
  const reason = errorReason(err);
  return (reason && DASHBOARD_TEXT[reason]) || httpErrorMessage(err);
}
