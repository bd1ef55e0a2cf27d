import { Body, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { imagesNotRemovedIncident } from '../cores/image-incident';
import { PRODUCT_GENDERS } from '../products/dto/product.dto';
import { DashboardCoresService } from './dashboard-cores.service';
import { actionNotice, base, Flash, FormOutcome, runAction } from './dashboard-helpers';
import { DashboardPages, FormAction } from './dashboard-pages.decorator';
import { DashboardViewer, Viewer } from './dashboard-session';
import { DashboardViews } from './dashboard-views';
import {
  CoreImagesFormDto,
  CoreListQueryFormDto,
  CoreRenameFormDto,
  DashboardFormDto,
  ProductSearchFormDto,
} from './dto/dashboard-forms.dto';
import { OwnerOnly } from './owner-only.decorator';

/** Cores grid and detail, rename / replace images / delete, and the product search playground. */
@DashboardPages('dashboard/cores')
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
  @FormAction()
  async rename(
    @Viewer() viewer: DashboardViewer,
    @Param('id') id: string,
    @Body() form: CoreRenameFormDto,
  ): Promise<FormOutcome> {
    const flash = await actionNotice(
      () => this.cores.rename(viewer.ctx, id, form.name),
      (core) => ({ kind: 'success', text: `Renamed to "${core.name}".` }),
    );
    return { url: `/dashboard/cores/${encodeURIComponent(id)}`, flash };
  }

  @Post(':id/images')
  @OwnerOnly()
  @FormAction()
  async replaceImages(
    @Viewer() viewer: DashboardViewer,
    @Param('id') id: string,
    @Body() form: CoreImagesFormDto,
  ): Promise<FormOutcome> {
    const flash = await actionNotice(
      () => this.cores.replaceImages(viewer.ctx, id, form),
      (r) => {
        const failed = r.imagesFailed ?? 0;
        const text =
          `Images replaced; a new taste profile is being generated (job ${r.jobId}). ` +
          `Old images removed: ${r.imagesPurged ?? 0}, not removed: ${failed}.`;
        return failed > 0
          ? { kind: 'error', text: `${text} ${imagesNotRemovedIncident(failed)}` }
          : { kind: 'success', text };
      },
    );
    return { url: `/dashboard/cores/${encodeURIComponent(id)}`, flash };
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
  @FormAction()
  async remove(
    @Viewer() viewer: DashboardViewer,
    @Param('id') id: string,
    @Body() _form: DashboardFormDto,
  ): Promise<FormOutcome> {
    const r = await this.cores.remove(viewer.ctx, id);
    const flash: Flash =
      r.imagesFailed > 0
        ? {
            kind: 'error',
            text: `Core deleted (${r.imagesPurged} image(s) removed). ${imagesNotRemovedIncident(r.imagesFailed)} See the audit log.`,
          }
        : { kind: 'success', text: `Core deleted. Images removed: ${r.imagesPurged}.` };
    return { url: '/dashboard/cores', flash };
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
    const { value: result, error } = await runAction(() => this.cores.search(viewer.ctx, id, form));
    res
      .status(error ? error.status : 200)
      .type('html')
      .send(
        this.views.render('search', {
          ...base(req, viewer, `Search products · ${core.name}`, 'cores'),
          core,
          genders: PRODUCT_GENDERS,
          form,
          result,
          error: error?.text ?? null,
        }),
      );
  }
}
