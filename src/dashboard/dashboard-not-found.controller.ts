import { All, NotFoundException } from '@nestjs/common';
import { DashboardPages } from './dashboard-pages.decorator';

/**
 * Any other address under /dashboard: the dashboard's own 404 page (behind the session, so an anonymous
 * visitor is sent to sign in first), not the API's JSON error. Registered after every dashboard
 * controller (dashboard.module.ts), so it matches only what none of them serves; the queue board is
 * middleware and runs before any route.
 */
@DashboardPages('dashboard')
export class DashboardNotFoundController {
  @All('*path')
  notFound(): never {
    throw new NotFoundException('There is no dashboard page at this address.');
  }
}
