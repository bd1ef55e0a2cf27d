import { Controller, Get, NotFoundException, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/public.decorator';
import { IMAGE_CACHE_CONTROL, ImageStore } from './image-store';

/**
 * Serves stored images at their unguessable public URL (`fs` driver), without authentication.
 * Unknown, deleted and malformed keys all answer 404 (not cacheable); a found image may be cached for
 * IMAGE_CACHE_MAX_AGE_SECONDS, so a deleted one stops being served within that time.
 */
@ApiExcludeController()
@Public()
@Controller('images')
export class ImagesController {
  constructor(private readonly store: ImageStore) {}

  @Get('*key')
  async getImage(
    @Param('key') key: string | string[],
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const image = await this.store.open(Array.isArray(key) ? key.join('/') : key);
    if (!image) throw new NotFoundException('Image not found');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', IMAGE_CACHE_CONTROL);
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    return new StreamableFile(image.stream, { type: image.contentType, length: image.size });
  }
}
