import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * An HttpException that also names a domain reason a client can branch on (docs/decisions/0038).
 * Each module declares its reasons in one enum (`CoreErrorCode`, `ImageErrorCode`, `JobErrorCode`,
 * `RateLimitErrorCode`, `AuthErrorCode`) and throws this with one of them; each transport maps it in
 * one place: the REST filter adds `reason` to the error body beside the per-status `code`, the MCP
 * tools put it in the error result's `_meta`, the dashboard picks its wording by it.
 */
export class DomainException<R extends string = string> extends HttpException {
  constructor(
    status: HttpStatus,
    readonly reason: R,
    message: string,
  ) {
    super({ message, reason }, status);
  }
}

/** The domain reason of an error, if it carries one (a DomainException or an exception with `reason`). */
export function errorReason(err: unknown): string | undefined {
  if (!(err instanceof HttpException)) return undefined;
  const reason = (err as { reason?: unknown }).reason;
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * The exception class of a module: `reason` picks the HTTP status from `statusOf`, the module's one
 * table of statuses, e.g. `class CoresException extends domainExceptionOf<CoreErrorCode>({...}) {}`.
 */
export function domainExceptionOf<R extends string>(statusOf: Readonly<Record<R, HttpStatus>>) {
  return class extends DomainException<R> {
    constructor(reason: R, message: string) {
      super(statusOf[reason], reason, message);
    }
  };
}
