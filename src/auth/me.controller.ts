import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiOrgOperation } from '../common/api-docs.decorators';
import { MeResponseDto } from './dto/me.dto';
import { MeService } from './me.service';
import { Org, OrgContext } from './org-context';

@ApiTags('auth')
@Controller('api/v1/org/me')
export class MeController {
  constructor(private readonly me: MeService) {}

  @Get()
  @ApiOperation({ summary: 'Verify an API key', description: 'A cheap check of whether a key is valid.' })
  @ApiOkResponse({ type: MeResponseDto, description: 'The key is valid.' })
  @ApiOrgOperation()
  getMe(@Org() ctx: OrgContext): MeResponseDto {
    return this.me.describe(ctx);
  }
}
