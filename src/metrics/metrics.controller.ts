import { Controller, Get, Headers, NotFoundException, Res, UnauthorizedException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { METRICS_MESSAGES, MetricsService } from './metrics.service';

/** Prometheus scrape endpoint, outside the public API (like /health). */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async scrape(
    @Headers('authorization') authorization: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const access = this.metrics.access(authorization);
    if (access === 'unauthorized') throw new UnauthorizedException(METRICS_MESSAGES.unauthorized);
    if (access === 'not_found') throw new NotFoundException(METRICS_MESSAGES.not_found);
    res.type(this.metrics.contentType).send(await this.metrics.render());
  }
}
