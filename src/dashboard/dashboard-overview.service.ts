import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '../auth/api-keys.service';
import { OrgContext } from '../auth/org-context';
import { CoresService } from '../cores/cores.service';
import { RateLimitService } from '../throttling/rate-limit.service';

export interface LimitUsage {
  label: string;
  scope: string;
  limit: number;
  used: number;
  resetSeconds: number;
}

export interface OverviewModel {
  orgName: string;
  activeKeys: number;
  revokedKeys: number;
  cores: number;
  limits: LimitUsage[];
}

/** The overview page: organization, counts and current use of each rate limit. */
@Injectable()
export class DashboardOverviewService {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly cores: CoresService,
    private readonly rateLimits: RateLimitService,
  ) {}

  async summary(ctx: OrgContext): Promise<OverviewModel> {
    const keys = await this.keys.listKeys(ctx.orgId);
    const active = keys.filter((k) => !k.revokedAt);
    const [usage, cores] = await Promise.all([
      this.rateLimits.usage(
        ctx.orgId,
        active.map((k) => k.id),
      ),
      this.cores.list(ctx, { page: 1, limit: 1 }),
    ]);
    return {
      orgName: ctx.orgName,
      activeKeys: active.length,
      revokedKeys: keys.length - active.length,
      cores: cores.total,
      limits: [
        { label: 'Core creation', scope: 'organization', ...usage.create },
        { label: 'Product search', scope: 'organization', ...usage.search },
        ...active.map((k) => ({
          label: 'General requests',
          scope: `key ${k.name} (${k.prefix}…)`,
          ...usage.general[k.id],
        })),
      ],
    };
  }
}
