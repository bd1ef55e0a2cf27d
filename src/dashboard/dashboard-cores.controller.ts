import { Body, Controller, Get, Param, Post, Query, Req, Res, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../auth/public.decorator';
import { PRODUCT_GENDERS } from '../products/dto/product.dto';
import { DashboardCoresService } from './dashboard-cores.service';
import { DashboardExceptionFilter } from './dashboard-exception.filter';
import { DashboardViewer, Viewer } from './dashboard-session';
import { DashboardViews } from './dashboard-views';
import { base } from './dashboard.controller';
import {
  CoreImagesFormDto,
  CoreListQueryFormDto,
  CoreRenameFormDto,
  DashboardFormDto,
  ProductSearchFormDto,
} from './dto/dashboard-forms.dto';
import { OwnerOnly } from './owner-only.decorator';
import { SessionGuard } from './session.guard';
import { isUserError, userErrorText } from './user-error';

/** Cores grid and detail, rename / replace images / delete, and the product search playground. */
@ApiExcludeController()
@Public()
@UseGuards(SessionGuard)
@UseFilters(DashboardExceptionFilter)
@Controller('dashboard/cores')
export class DashboardCoresController {
  constructor(
    private readonly views: DashboardViews,
    private readonly cores: DashboardCoresService,
  ) {}

  @Get()
  async grid(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Query() query: CoreListQueryFormDto,
  ): Promise<string> {
    const list = await this.cores.list(viewer.ctx, query);
    return this.views.render('cores', {
      ...base(req, viewer, 'Cores', 'cores'),
      list,
      query: query.query ?? '',
    });
  }

  @Get(':id')
  async detail(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Param('id') id: string,
  ): Promise<string> {
    const { core, jobs } = await this.cores.detail(viewer.ctx, id);
    return this.views.render('core', { ...base(req, viewer, core.name, 'cores'), core, jobs });
  }

  @Post(':id/rename')
  @OwnerOnly()
  async rename(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Param('id') id: string,
    @Body() form: CoreRenameFormDto,
  ): Promise<void> {
    try {
      const core = await this.cores.rename(viewer.ctx, id, form.name);
      req.session.flash = { kind: 'success', text: `Renamed to "${core.name}".` };
    } catch (err: unknown) {
      if (!isUserError(err)) throw err;
      req.session.flash = { kind: 'error', text: userErrorText(err) };
    }
    res.redirect(303, `/dashboard/cores/${encodeURIComponent(id)}`);
  }

  @Post(':id/images')
  @OwnerOnly()
  async replaceImages(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Param('id') id: string,
    @Body() form: CoreImagesFormDto,
  ): Promise<void> {
    try {
      const r = await this.cores.replaceImages(viewer.ctx, id, form);
      const failed = r.imagesFailed ?? 0;
      req.session.flash = {
        kind: failed > 0 ? 'error' : 'success',
        text:
          `Images replaced; a new taste profile is being generated (job ${r.jobId}). ` +
          `Old images removed: ${r.imagesPurged ?? 0}, not removed: ${failed}.` +
          (failed > 0
            ? ' Images that could not be removed may still be reachable: treat this as an incident.'
            : ''),
      };
    } catch (err: unknown) {
      if (!isUserError(err)) throw err;
      req.session.flash = { kind: 'error', text: userErrorText(err) };
    }
    res.redirect(303, `/dashboard/cores/${encodeURIComponent(id)}`);
  }

  @Get(':id/delete')
  @OwnerOnly()
  async confirmDelete(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Param('id') id: string,
  ): Promise<string> {
    const core = await this.cores.get(viewer.ctx, id);
    return this.views.render('core-delete', { ...base(req, viewer, `Delete ${core.name}`, 'cores'), core });
  }

  @Post(':id/delete')
  @OwnerOnly()
  async remove(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Param('id') id: string,
    @Body() _form: DashboardFormDto,
  ): Promise<void> {
    const r = await this.cores.remove(viewer.ctx, id);
    req.session.flash =
      r.imagesFailed > 0
        ? {
            kind: 'error',
            text:
              `Core deleted, but ${r.imagesFailed} image(s) could not be removed and may still be reachable at ` +
              `their URLs (${r.imagesPurged} removed). Treat this as an incident; see the audit log.`,
          }
        : { kind: 'success', text: `Core deleted. Images removed: ${r.imagesPurged}.` };
    res.redirect(303, '/dashboard/cores');
  }

  @Get(':id/search')
  async playground(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Param('id') id: string,
  ): Promise<string> {
    const core = await this.cores.get(viewer.ctx, id);
    return this.views.render('search', {
      ...base(req, viewer, `Search products · ${core.name}`, 'cores'),
      core,
      genders: PRODUCT_GENDERS,
      form: {},
      result: null,
      error: null,
    });
  }

  @Post(':id/search')
  async search(
    @Viewer() viewer: DashboardViewer,
    @Req() req: Request,
    @Res() res: Response,
    @Param('id') id: string,
    @Body() form: ProductSearchFormDto,
  ): Promise<void> {
    const core = await this.cores.get(viewer.ctx, id);
    let status = 200;
    let result = null;
    let error: string | null = null;
    try {
      result = await this.cores.search(viewer.ctx, id, form);
    } catch (err: unknown) {
      if (!isUserError(err)) throw err;
      status = err.getStatus();
      error = userErrorText(err);
    }
    res
      .status(status)
      .type('html')
      .send(
        this.views.render('search', {
          ...base(req, viewer, `Search products · ${core.name}`, 'cores'),
          core,
          genders: PRODUCT_GENDERS,
          form,
          result,
          error,
        }),
      );
  }
}
