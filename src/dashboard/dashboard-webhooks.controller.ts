import {
  Body,
  Controller,
  Get,
  HttpException,
  Param,
  Post,
  Req,
  Res,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { WEBHOOK_EVENTS } from '../webhooks/webhook.types';
import { WebhooksService } from '../webhooks/webhooks.service';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { DashboardViewer, Viewer } from './dashboard-session';
import { DashboardViews } from './dashboard-views';
import { base } from './dashboard.controller';
import { DashboardFormDto, WebhookCreateFormDto } from './dto/dashboard-forms.dto';
import { OwnerOnly } from './owner-only.decorator';
import { SessionGuard } from './session.guard';
import { userErrorText } from './user-error';

/**
 * Webhook endpoints: add (the signing secret shown once), list with the last delivery, send a test
 * event, recent deliveries, delete. Owners only (docs/decisions/0023-dashboard-roles-and-sessions.md).
 */
@ApiExcludeController()
@Public()
@UseGuards(SessionGuard)
@OwnerOnly()
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/webhooks')
export class DashboardWebhooksController {
  constructor(
    private readonly views: DashboardViews,
    private readonly webhooks: WebhooksService,
  ) {}

  @Get()
  async list(@Viewer() viewer: DashboardViewer, @Req() req: Request): Promise<string> {
    const { webhooks } = await this.webhooks.list(viewer.ctx);
    return this.views.render('webhooks', {
      ...base(req, viewer, 'Webhooks', 'webhooks'),
      webhooks,
      events: WEBHOOK_EVENTS,
      created: null,
      error: null,
      form: {},
    });
  }

  /** Renders the secret in the response itself: it is shown only once. Bad input is shown on the page. */
  @Post()
  async create(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Body() form: WebhookCreateFormDto,
  ): Promise<void> {
    let created = null;
    let error: string | null = null;
    let status = 201;
    try {
      created = await this.webhooks.create(viewer.ctx, {
        url: form.url,
        events: form.events,
        description: form.description || undefined,
      });
    } catch (err: unknown) {
      if (!(err instanceof HttpException) || err.getStatus() >= 500) throw err;
      status = err.getStatus();
      error = userErrorText(err);
    }
    const { webhooks } = await this.webhooks.list(viewer.ctx);
    res
      .status(status)
      .type('html')
      .send(
        this.views.render('webhooks', {
          ...base(req, viewer, 'Webhooks', 'webhooks'),
          webhooks,
          events: WEBHOOK_EVENTS,
          created,
          error,
          form: created ? {} : form,
        }),
      );
  }

  @Get(':id')
  async detail(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Param('id') id: string,
  ): Promise<string> {
    const webhook = await this.webhooks.get(viewer.ctx, id);
    const { deliveries } = await this.webhooks.deliveries(viewer.ctx, id);
    return this.views.render('webhook', { ...base(req, viewer, 'Webhook', 'webhooks'), webhook, deliveries });
  }

  @Post(':id/test')
  async test(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Param('id') id: string,
    @Body() _form: DashboardFormDto,
  ): Promise<void> {
    const { deliveryId } = await this.webhooks.sendTest(viewer.ctx, id);
    req.session.flash = {
      kind: 'success',
      text: `Test event queued (webhook-id ${deliveryId}). Reload to see the attempt below.`,
    };
    res.redirect(303, `/dashboard/webhooks/${encodeURIComponent(id)}`);
  }

  @Get(':id/delete')
  async confirmDelete(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Param('id') id: string,
  ): Promise<string> {
    const webhook = await this.webhooks.get(viewer.ctx, id);
    return this.views.render('webhook-delete', {
      ...base(req, viewer, 'Delete webhook', 'webhooks'),
      webhook,
    });
  }

  @Post(':id/delete')
  async remove(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Param('id') id: string,
    @Body() _form: DashboardFormDto,
  ): Promise<void> {
    await this.webhooks.remove(viewer.ctx, id);
    req.session.flash = {
      kind: 'success',
      text: 'Webhook endpoint deleted; its pending deliveries were dropped.',
    };
    res.redirect(303, '/dashboard/webhooks');
  }
}
