import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Org, OrgContext } from '../auth/org-context';
import { ApiOrgOperation } from '../common/api-docs.decorators';
import { ErrorResponseDto } from '../common/error-response.dto';
import { Idempotent, REPLAYED_HEADER } from '../idempotency/http-idempotency';
import { ThrottleCategory } from '../throttling/throttle-category.decorator';
import { CoresService } from './cores.service';
import { IMAGES_NOT_REMOVED_INCIDENT } from './image-incident';
import {
  CoreCreateDto,
  CoreCreateResponseDto,
  CoreDeleteResponseDto,
  CoreListQueryDto,
  CoreListResponseDto,
  CoreResponseDto,
  CoreUpdateDto,
  CoreUpdateResponseDto,
  replacesImages,
} from './dto/core.dto';

@ApiTags('cores')
@Controller('api/v1/org/cores')
export class CoresController {
  constructor(private readonly cores: CoresService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Create a core',
    description:
      'Ingests 1 to 5 images (https URLs and/or base64 data URLs) during the request and starts taste ' +
      'generation in the background. Poll GET /cores/{id} or GET /jobs/{jobId} until ready.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Makes a retry safe: the same key and JSON body within 24 h replay the first response (with ' +
      '`Idempotent-Replayed: true`) without creating, fetching or charging the creation budget. 1 to 255 ' +
      'printable ASCII characters, per organization.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]{1,255}$' },
  })
  @ApiAcceptedResponse({
    type: CoreCreateResponseDto,
    description: 'Accepted; generation runs in the background.',
    headers: {
      [REPLAYED_HEADER]: {
        description: '`true` when this is the stored response of an earlier request with the same key.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiResponse({
    status: 409,
    description: 'A request with this Idempotency-Key is still running.',
    type: ErrorResponseDto,
  })
  @ApiResponse({
    status: 422,
    description: 'This Idempotency-Key was used with a different body.',
    type: ErrorResponseDto,
  })
  @ApiOrgOperation(400, 413, 415, 503)
  @ThrottleCategory('create')
  @Idempotent('cores.create')
  createCore(@Org() ctx: OrgContext, @Body() dto: CoreCreateDto): Promise<CoreCreateResponseDto> {
    return this.cores.create(ctx, dto);
  }

  @Get()
  @ApiOperation({ summary: 'List cores', description: 'Newest first, paginated, with synonym-aware search.' })
  @ApiOkResponse({ type: CoreListResponseDto })
  @ApiOrgOperation(400)
  listCores(@Org() ctx: OrgContext, @Query() query: CoreListQueryDto): Promise<CoreListResponseDto> {
    return this.cores.list(ctx, query);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a core',
    description: 'The core with its images, captions and taste profile.',
  })
  @ApiParam({ name: 'id', description: 'Core id.' })
  @ApiOkResponse({ type: CoreResponseDto })
  @ApiOrgOperation(404)
  getCore(@Org() ctx: OrgContext, @Param('id') id: string): Promise<CoreResponseDto> {
    return this.cores.get(ctx, id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Rename a core or replace its images',
    description:
      'A rename alone starts no job. Replacing images ingests the new ones, deletes the objects behind ' +
      'the old ones and starts a new generation job (coreStatus goes back to processing). An ' +
      'image-replacing PATCH takes one unit of the creation budget, like POST /cores (429 with the ' +
      'same X-RateLimit-*-Create headers); a rename alone does not.',
  })
  @ApiParam({ name: 'id', description: 'Core id.' })
  @ApiOkResponse({ type: CoreUpdateResponseDto })
  @ApiOrgOperation(400, 404, 413, 415, 503)
  @ThrottleCategory('create', (req) => replacesImages(req.body))
  updateCore(
    @Org() ctx: OrgContext,
    @Param('id') id: string,
    @Body() dto: CoreUpdateDto,
  ): Promise<CoreUpdateResponseDto> {
    return replacesImages(dto)
      ? this.cores.replaceImages(ctx, id, dto)
      : this.cores.rename(ctx, id, dto.name);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a core',
    description:
      'Deletes the core and its image objects in the same request and writes the audit log, with ' +
      `imagesFailed counting the objects not removed. ${IMAGES_NOT_REMOVED_INCIDENT}`,
  })
  @ApiParam({ name: 'id', description: 'Core id.' })
  @ApiOkResponse({ type: CoreDeleteResponseDto })
  @ApiOrgOperation(404)
  deleteCore(@Org() ctx: OrgContext, @Param('id') id: string): Promise<CoreDeleteResponseDto> {
    return this.cores.remove(ctx, id);
  }
}
