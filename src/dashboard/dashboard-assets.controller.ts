import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Public } from '../auth/public.decorator';
import { PUBLIC_DIR } from './dashboard-views';

const ASSETS: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
};

/** The stylesheet and the small script, read once from dashboard/public. No session needed. */
@ApiExcludeController()
@Public()
@Controller('dashboard/assets')
export class DashboardAssetsController {
  private readonly files = new Map<string, Buffer>();

  @Get(':file')
  @Header('Cache-Control', 'public, max-age=300')
  asset(@Param('file') file: string, @Res() res: Response): void {
    const type = ASSETS[file];
    if (!type) throw new NotFoundException('Not found.');
    let body = this.files.get(file);
    if (!body) {
      body = readFileSync(join(PUBLIC_DIR, file));
      this.files.set(file, body);
    }
    res.type(type).send(body);
  }
}
