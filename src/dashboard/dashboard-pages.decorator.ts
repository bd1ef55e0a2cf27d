import { applyDecorators, Controller, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
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
