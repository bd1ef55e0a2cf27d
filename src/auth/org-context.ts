import { createParamDecorator, ExecutionContext, UnauthorizedException } from '@nestjs/common';

/** Who is calling, resolved from the API key (or a dashboard session). Every query is scoped by orgId. */
export interface OrgContext {
  orgId: string;
  orgName: string;
  actor: { type: 'api_key' | 'user' | 'cli'; id: string | null; label: string };
  apiKeyId: string | null;
  /** The authenticating key's public fields (API-key requests only). */
  apiKey?: { id: string; name: string; prefix: string; createdAt: Date };
}

export interface RequestWithOrg {
  org?: OrgContext;
}

/** Handler parameter decorator: `@Org() ctx: OrgContext`. */
export const Org = createParamDecorator((_: unknown, context: ExecutionContext): OrgContext => {
  const req = context.switchToHttp().getRequest<RequestWithOrg>();
  if (!req.org) throw new UnauthorizedException('Missing or invalid API key.');
  return req.org;
});
