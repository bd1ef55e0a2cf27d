import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Org, OrgContext } from '../auth/org-context';
import { ApiOrgOperation } from '../common/api-docs.decorators';
import { JobResponseDto } from './dto/job.dto';
import { JobsService } from './jobs.service';

@ApiTags('jobs')
@Controller('api/v1/org/jobs')
export class JobsController {
  constructor(private readonly jobs: JobsService) {}

  @Get(':jobId')
  @ApiOperation({
    summary: 'Poll a taste generation job',
    description: '`jobStatus` is processing, ready or failed.',
  })
  @ApiParam({ name: 'jobId', description: 'Job id, from create or image replacement.' })
  @ApiOkResponse({ type: JobResponseDto })
  @ApiOrgOperation(404)
  getJob(@Org() ctx: OrgContext, @Param('jobId') jobId: string): Promise<JobResponseDto> {
    return this.jobs.get(ctx, jobId);
  }
}
