import { Controller, Get, Header, Redirect, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Public } from '../auth/public.decorator';
import { PUBLIC_DIR } from './dashboard-views';

/** The site root: `/` leads a browser to the dashboard, and the icon browsers ask for exists. */
@ApiExcludeController()
@Public()
@Controller()
export class RootController {
  private readonly favicon = readFileSync(join(PUBLIC_DIR, 'favicon.ico'));

  @Get()
  @Redirect('/dashboard', 302)
  root(): void {}

  @Get('favicon.ico')
  @Header('Cache-Control', 'public, max-age=86400')
  icon(@Res() res: Response): void {
    res.type('image/x-icon').send(this.favicon);
  }
}
