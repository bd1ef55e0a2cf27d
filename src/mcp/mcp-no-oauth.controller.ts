import { All, Controller, NotFoundException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator';

export const NO_OAUTH_MESSAGE =
  'This server does not use OAuth: MCP clients send an organization API key in the header ' +
  '"Authorization: Bearer tpk_...". A 401 from /mcp means that key is missing or wrong ("Invalid API key.").';

/**
 * MCP clients that speak OAuth react to a 401 from `/mcp` by discovering OAuth metadata and
 * registering themselves. This server authenticates with API keys only, so the discovery documents
 * and the endpoints clients fall back to are answered 404 with a message saying so: discovery ends
 * there, no authorization flow begins, and the client's error carries the reason.
 * (`docs/decisions/0010-newcomer-paths-are-tested.md`.)
 */
@ApiExcludeController()
@Public()
@Controller()
export class McpNoOAuthController {
  @All([
    '.well-known/oauth-protected-resource',
    '.well-known/oauth-protected-resource/*path',
    '.well-known/oauth-authorization-server',
    '.well-known/oauth-authorization-server/*path',
    '.well-known/openid-configuration',
    '.well-known/openid-configuration/*path',
    'register',
    'authorize',
    'token',
  ])
  noOAuth(): never {
    throw new NotFoundException(NO_OAUTH_MESSAGE);
  }
}
