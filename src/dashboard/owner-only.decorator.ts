import { SetMetadata } from '@nestjs/common';
import { DashboardRole } from './dashboard-user.entity';

export const DASHBOARD_ROLE_KEY = 'dashboard:role';

/**
 * Owner-only dashboard route (a handler or a whole controller guarded by `SessionGuard`): a signed-in
 * member gets a 403 page. Members browse cores, search and read the audit log; owners also manage
 * keys, cores, webhooks, the audit export and the queue board (docs/decisions/0023-dashboard-roles-and-sessions.md).
 */
export const OwnerOnly = (): MethodDecorator & ClassDecorator =>
  SetMetadata(DASHBOARD_ROLE_KEY, 'owner' satisfies DashboardRole);
