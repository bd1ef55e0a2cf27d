import {
  applyDecorators,
  CallHandler,
  Controller,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  Redirect,
  UseFilters,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { Observable, tap } from 'rxjs';
import { Public } from '../auth/public.decorator';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { FormOutcome } from './dashboard-helpers';
import { SessionGuard } from './session.guard';

/**
 * A dashboard controller: HTML pages left out of the public spec, behind the session (not the API
 * key), with errors rendered as pages.
 */
export function DashboardPages(path: string): ClassDecorator {
  return applyDecorators(
    ApiExcludeController(),
    Public(),
    UseGuards(SessionGuard),
    UseFilters(DashboardExceptionFilter),
    Controller(path),
  );
}

/** Stores a form action's notice in the session for the page it redirects to. */
@Injectable()
class FormOutcomeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler<FormOutcome>): Observable<FormOutcome> {
    const req = context.switchToHttp().getRequest<Request>();
    return next.handle().pipe(tap((outcome) => (req.session.flash = outcome.flash)));
  }
}

/** A form action (post/redirect/get): the handler returns a FormOutcome, answered with 303 to its url. */
export function FormAction(): MethodDecorator {
  return applyDecorators(Redirect('', 303), UseInterceptors(FormOutcomeInterceptor));
}
