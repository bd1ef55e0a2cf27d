import { Body, Get, Param, ParseUUIDPipe, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiKeysService } from '../auth/api-keys.service';
import { DashboardAuditService } from './dashboard-audit.service';
import { base, FormOutcome } from './dashboard-helpers';
import { DashboardOverviewService } from './dashboard-overview.service';
import { DashboardPages, FormAction } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-session';
import { DashboardViews } from './dashboard-views';
import { AuditQueryDto, DashboardFormDto, KeyCreateFormDto } from './dto/dashboard-forms.dto';
import { OwnerOnly } from './owner-only.decorator';

const uuid = new ParseUUIDPipe({ version: '4', errorHttpStatusCode: 404 });

/** Overview, API keys and audit log pages. Each handler calls one service and renders a template. */
@DashboardPages('dashboard')
export class DashboardController {
  constructor(
    private readonly views: DashboardViews,
    private readonly overview: DashboardOverviewService,
    private readonly keys: ApiKeysService,
    private readonly audit: DashboardAuditService,
  ) {}

  @Get()
  async home(@Viewer() viewer: DashboardViewer, @Req() req: Request): Promise<string> {
    const model = await this.overview.summary(viewer.ctx);
    return this.views.render('overview', { ...base(req, viewer, 'Overview', 'overview'), ...model });
  }

  @Get('keys')
  async keysPage(@Viewer() viewer: DashboardViewer, @Req() req: Request): Promise<string> {
    const keys = await this.keys.listKeys(viewer.ctx.orgId);
    return this.views.render('keys', { ...base(req, viewer, 'API keys', 'keys'), keys, created: null });
  }

  /** Renders the new key in the response itself: it is never stored, so it cannot be shown again. */
  @Post('keys')
  @OwnerOnly()
  async createKey(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Body() form: KeyCreateFormDto,
  ): Promise<void> {
    const created = await this.keys.createKey(viewer.ctx, form.name);
    const keys = await this.keys.listKeys(viewer.ctx.orgId);
    res
      .status(201)
      .type('html')
      .send(this.views.render('keys', { ...base(req, viewer, 'API keys', 'keys'), keys, created }));
  }

  @Get('keys/:id/revoke')
  @OwnerOnly()
  async confirmRevoke(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Param('id', uuid) id: string,
  ): Promise<string> {
    const key = await this.keys.getKeyForOrg(viewer.ctx.orgId, id);
    return this.views.render('key-revoke', { ...base(req, viewer, 'Revoke API key', 'keys'), key });
  }

  @Post('keys/:id/revoke')
  @OwnerOnly()
  @FormAction()
  async revokeKey(
    @Viewer() viewer: DashboardViewer,
    @Param('id', uuid) id: string,
    @Body() _form: DashboardFormDto,
  ): Promise<FormOutcome> {
    const key = await this.keys.revokeKey(viewer.ctx, id);
    const text = `Key "${key.name}" (${key.prefix}…) was revoked.`;
    return { url: '/dashboard/keys', flash: { kind: 'success', text } };
  }

  @Get('audit')
  async auditPage(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Query() query: AuditQueryDto,
  ): Promise<string> {
    const model = await this.audit.page(viewer.ctx, query);
    return this.views.render('audit', { ...base(req, viewer, 'Audit log', 'audit'), ...model });
  }

  @Get('audit/export.csv')
  @OwnerOnly()
  async auditCsv(
    @Viewer() viewer: DashboardViewer,
    @Res() res: Response,
    @Query() query: AuditQueryDto,
  ): Promise<void> {
    const lines = this.audit.csv(viewer.ctx, query);
    const first = await lines.next();
    res.status(200).type('text/csv; charset=utf-8');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="audit-log-${new Date().toISOString().slice(0, 10)}.csv"`,
    );
    if (!first.done) res.write(first.value);
    for await (const line of lines) res.write(line);
    res.end();
  }
}
