import { Injectable, UnauthorizedException } from '@nestjs/common';
import { MeResponseDto } from './dto/me.dto';
import { OrgContext } from './org-context';

/** `GET /me` answers from what authentication already loaded: no further query. */
@Injectable()
export class MeService {
  describe(ctx: OrgContext): MeResponseDto {
    if (!ctx.apiKey) throw new UnauthorizedException('GET /me needs an API key.');
    const key = ctx.apiKey;
    return {
      status: 200,
      organization: { id: ctx.orgId, name: ctx.orgName },
      apiKey: { id: key.id, name: key.name, prefix: key.prefix, createdAt: key.createdAt.toISOString() },
    };
  }
}
