import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  UseInterceptors,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import { catchError, from, mergeMap, Observable, of, throwError } from 'rxjs';
import { RequestWithOrg } from '../auth/org-context';
import { IdempotencyClaim, IdempotencyService } from './idempotency.service';

const IDEMPOTENT_SCOPE = 'idempotency:scope';
export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

type IdempotentRequest = Request & RequestWithOrg & { idempotency?: IdempotencyClaim };

/**
 * Gives a handler `Idempotency-Key` support. The key is claimed by the throttler guard before the
 * handler's organization budget is charged ({@link HttpIdempotency.beforeCharge}); the interceptor
 * then answers a replay from storage, or stores the handler's response (a failure releases the key).
 */
export const Idempotent = (scope: string): MethodDecorator =>
  applyDecorators(SetMetadata(IDEMPOTENT_SCOPE, scope), UseInterceptors(IdempotencyInterceptor));

/** The HTTP side of idempotency, called by the throttler guard around the budget charge. */
@Injectable()
export class HttpIdempotency {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly reflector: Reflector,
  ) {}

  /**
   * For an `@Idempotent()` handler with an `Idempotency-Key`: validates and claims the key, before any
   * budget is charged. True when the request is a replay (charge nothing); throws 400, 409 or 422.
   */
  async beforeCharge(context: ExecutionContext): Promise<boolean> {
    const scope = this.reflector.get<string | undefined>(IDEMPOTENT_SCOPE, context.getHandler());
    if (!scope) return false;
    const req = context.switchToHttp().getRequest<IdempotentRequest>();
    if (req.idempotency) return req.idempotency.kind === 'replay';
    const key = this.idempotency.parseKey(req.headers[IDEMPOTENCY_HEADER]);
    if (key === undefined || !req.org) return false;
    req.idempotency = await this.idempotency.claim(req.org.orgId, scope, key, req.body);
    return req.idempotency.kind === 'replay';
  }

  /** The budget refused the request (429): it did nothing, so its key may be used again. */
  async release(context: ExecutionContext): Promise<void> {
    const req = context.switchToHttp().getRequest<IdempotentRequest>();
    if (req.idempotency?.kind === 'claimed') await this.idempotency.release(req.idempotency);
    req.idempotency = undefined;
  }
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const req = context.switchToHttp().getRequest<IdempotentRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const claim = req.idempotency;
    if (!claim) return next.handle();
    if (claim.kind === 'replay') {
      res.setHeader(REPLAYED_HEADER, 'true');
      res.status(claim.status);
      return of(claim.body);
    }
    return next.handle().pipe(
      mergeMap((body: unknown) =>
        // Every response body carries its HTTP status (the contract's `status` field).
        from(this.idempotency.complete(claim, statusOf(body), body).then(() => body)),
      ),
      catchError((err: unknown) =>
        from(this.idempotency.release(claim)).pipe(mergeMap(() => throwError(() => err))),
      ),
    );
  }
}

function statusOf(body: unknown): number {
  const status = (body as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : 200;
}
