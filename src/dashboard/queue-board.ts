import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { BullBoardModule, type BullBoardModuleOptions } from '@bull-board/nestjs';
import { Injectable, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AllConfig } from '../config/configuration';
import type Redis from 'ioredis';
import { QueueName } from '../jobs/job.types';
import { JobsModule } from '../jobs/jobs.module';
import { REDIS } from '../redis/redis.module';
import { dashboardSessions } from './dashboard-session-store';
import { DashboardUsersModule } from './dashboard-users.module';
import { DashboardUsersService } from './dashboard-users.service';

/** Where the board lives, inside the dashboard (its session cookie's path is /dashboard). */
export const QUEUE_BOARD_PATH = '/dashboard/queues';

/**
 * The board's own Content-Security-Policy, for its path only: its React bundle sets inline styles
 * and its page uses `<base href>`; scripts still come from 'self' only, and nothing is framed.
 */
const BOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; " +
  "base-uri 'self'; object-src 'none'";

/**
 * Who may open the queue board: a signed-in dashboard `owner`. The board shows every
 * organization's generation jobs (their ids), so QUEUE_BOARD_ORG_IDS narrows it to the operator's
 * own organizations; in production it must be set, or the board is open to nobody.
 */
@Injectable()
export class QueueBoardAccess {
  private readonly orgIds: ReadonlySet<string> | null;

  constructor(
    config: ConfigService<AllConfig, true>,
    private readonly users: DashboardUsersService,
  ) {
    const { queueBoardOrgIds } = config.get('ops', { infer: true });
    const production = config.get('app', { infer: true }).env === 'production';
    this.orgIds = queueBoardOrgIds.length > 0 ? new Set(queueBoardOrgIds) : production ? new Set() : null;
  }

  allows(viewer: { user: { role: string }; ctx: { orgId: string } } | null | undefined): boolean {
    return viewer?.user.role === 'owner' && (this.orgIds === null || this.orgIds.has(viewer.ctx.orgId));
  }

  /** Loads the dashboard session, then the owner check: anonymous visitors go to sign-in, anyone else gets 404. */
  gate(sessions: RequestHandler): RequestHandler {
    return (req: Request, res: Response, next: NextFunction) =>
      sessions(req, res, (err?: unknown) => {
        if (err) return next(err);
        this.check(req, res, next).catch(next);
      });
  }

  private async check(req: Request, res: Response, next: NextFunction): Promise<void> {
    const userId = req.session?.userId;
    const user = userId ? await this.users.findSignedIn(userId) : null;
    if (!user) {
      res.redirect(303, '/dashboard/sign-in');
      return;
    }
    if (!this.allows({ user, ctx: user.ctx })) {
      res.status(404).type('text/plain').send('Not found');
      return;
    }
    res.setHeader('Content-Security-Policy', BOARD_CSP);
    res.setHeader('Cache-Control', 'no-store');
    next();
  }
}

@Module({
  imports: [DashboardUsersModule],
  providers: [QueueBoardAccess],
  exports: [QueueBoardAccess],
})
export class QueueBoardAccessModule {}

/**
 * The BullMQ queue board (@bull-board/nestjs, Express adapter) at /dashboard/queues: waiting,
 * active, delayed, failed and completed generation jobs, retry of failed ones. HTTP processes only.
 */
@Module({
  imports: [
    JobsModule,
    BullBoardModule.forRootAsync({
      imports: [QueueBoardAccessModule],
      inject: [QueueBoardAccess, ConfigService, REDIS],
      useFactory: (access: QueueBoardAccess, config: ConfigService<AllConfig, true>, redis: Redis) => ({
        route: QUEUE_BOARD_PATH,
        // @bull-board/express 9.10.1 types against its own copy of @bull-board/api: same shape.
        adapter: ExpressAdapter as unknown as BullBoardModuleOptions['adapter'],
        boardOptions: { uiConfig: { boardTitle: 'Taste queues', hideRedisDetails: true } },
        middleware: access.gate(dashboardSessions(config, redis)),
      }),
    }),
    BullBoardModule.forFeature({ name: QueueName.Generation, adapter: BullMQAdapter }),
  ],
})
export class QueueBoardModule {}
