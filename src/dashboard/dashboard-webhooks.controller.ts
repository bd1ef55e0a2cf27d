import { Body, Get, Param, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { WEBHOOK_EVENTS } from '../webhooks/webhook.types';
import { WebhooksService } from '../webhooks/webhooks.service';
import { base, FormOutcome, runAction } from './dashboard-helpers';
import { DashboardPages, FormAction } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-session';
import { DashboardViews } from './dashboard-views';
import { DashboardFormDto, WebhookCreateFormDto } from './dto/dashboard-forms.dto';
import { OwnerOnly } from './owner-only.decorator';

/**
 * Webhook endpoints: add (the signing secret shown once), list with the last delivery, send a test
 * event, recent deliveries, delete. Owners only (docs/decisions/0023-dashboard-roles-and-sessions.md).
 */
@DashboardPages('dashboard/webhooks')
@OwnerOnly()
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
    const { value: created, error } = await runAction(() =>
      this.webhooks.create(viewer.ctx, {
        url: form.url,
        events: form.events ?? [],
        description: form.description || undefined,
      }),
    );
    const { webhooks } = await this.webhooks.list(viewer.ctx);
    res
      .status(error ? error.status : 201)
      .type('html')
      .send(
        this.views.render('webhooks', {
          ...base(req, viewer, 'Webhooks', 'webhooks'),
          webhooks,
          events: WEBHOOK_EVENTS,
          created,
          error: error?.text ?? null,
          // What was sent, unticked boxes included (a form with none re-ticked every box).
          form: created ? {} : { ...form, events: form.events ?? [] },
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
  @FormAction()
  async test(
    @Viewer() viewer: DashboardViewer,
    @Param('id') id: string,
    @Body() _form: DashboardFormDto,
  ): Promise<FormOutcome> {
    const { deliveryId } = await this.webhooks.sendTest(viewer.ctx, id);
    return {
      url: `/dashboard/webhooks/${encodeURIComponent(id)}`,
      flash: {
        kind: 'success',
        text: `Test event queued (webhook-id ${deliveryId}). Reload to see the attempt below.`,
      },
    };
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
  @FormAction()
  async remove(
    @Viewer() viewer: DashboardViewer,
    @Param('id') id: string,
    @Body() _form: DashboardFormDto,
  ): Promise<FormOutcome> {
    await this.webhooks.remove(viewer.ctx, id);
    const text = 'Webhook endpoint deleted; its pending deliveries were dropped.';
    return { url: '/dashboard/webhooks', flash: { kind: 'success', text } };
  }
}
