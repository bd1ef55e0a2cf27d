import { All, Controller, HttpCode, MethodNotAllowedException, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Org, OrgContext } from '../auth/org-context';
import { McpHttpService } from './mcp-http.service';

/**
 * The MCP endpoint (Streamable HTTP, JSON responses, stateless): `POST /mcp` with
 * `Authorization: Bearer <API key>`. Not part of the REST OpenAPI document.
 */
@ApiExcludeController()
@Controller('mcp')
export class McpController {
  constructor(private readonly mcp: McpHttpService) {}

  @Post()
  handle(@Org() ctx: OrgContext, @Req() req: Request, @Res() res: Response): Promise<void> {
    return this.mcp.handle(req, res, ctx);
  }

  /** Stateless server: no SSE stream to open (GET) and no session to end (DELETE). */
  @All()
  @HttpCode(405)
  other(@Res({ passthrough: true }) res: Response): never {
    res.setHeader('Allow', 'POST');
    throw new MethodNotAllowedException('The MCP endpoint accepts POST only (stateless Streamable HTTP).');
  }
}
