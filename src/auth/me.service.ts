import { Injectable } from '@nestjs/common';
import { ApiKeysService } from './api-keys.service';
import { MeResponseDto } from './dto/me.dto';
import { OrgContext } from './org-context';

@Injectable()
export class MeService {
  constructor(private readonly keys: ApiKeysService) {}

  async describe(ctx: OrgContext): Promise<MeResponseDto> {
    const key = await this.keys.getKeyForOrg(ctx.orgId, ctx.apiKeyId ?? '');
    return {
      status: 200,
      organization: { id: ctx.orgId, name: ctx.orgName },
      apiKey: { id: key.id, name: key.name, prefix: key.prefix, createdAt: key.createdAt.toISOString() },
    };
  }
}
