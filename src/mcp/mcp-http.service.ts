import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ForbiddenException, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  McpHttpHandler,
  McpRequestContext,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { OrgContext } from '../auth/org-context';
import { AllConfig } from '../config/configuration';
import { McpToolsService } from './mcp-tools.service';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The browser origins allowed to call /mcp, compared whole (scheme, host and port): the public base
 * URL's origin, and on a loopback address the same scheme and port under every loopback name.
 */
export function allowedMcpOrigins(publicBaseUrl: string): Set<string> {
  const own = new URL(publicBaseUrl);
  const origins = new Set([own.origin]);
  if (LOOPBACK.includes(own.hostname)) {
    for (const host of LOOPBACK)
      origins.add(new URL(`${own.protocol}//${host}${own.port ? `:${own.port}` : ''}`).origin);
  }
  return origins;
}

/** No Origin header (a non-browser client) passes; any other value must be an allowed origin exactly. */
export function mcpOriginAllowed(origin: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (origin === undefined || origin === '') return true;
  try {
    const parsed = new URL(origin);
    return parsed.origin === origin.replace(/\/$/, '') && allowed.has(parsed.origin);
  } catch {
    return false;
  }
}

/** JSON-RPC batches are refused (docs/decisions/0022-body-handling-before-auth.md): one message per request. */
const BATCH_REFUSED = {
  jsonrpc: '2.0',
  id: null,
  error: {
    code: -32600,
    message: 'JSON-RPC batches are not supported: send one JSON-RPC message per HTTP request.',
  },
} as const;

function orgFrom(ctx: McpRequestContext): OrgContext {
  const org = ctx.authInfo?.extra?.org as OrgContext | undefined;
  if (!org) throw new Error('MCP request without an authenticated organization');
  return org;
}

/**
 * The Express request as a web-standard Request: headers and URL only. The body is handed to the SDK
 * already parsed (`parsedBody`), so it is not serialized again (a create_core call carries up to five
 * images as data URLs).
 */
function toWebRequest(req: ExpressRequest, baseUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(name, v));
    else if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(new URL(req.originalUrl, baseUrl), { method: req.method, headers });
}

async function sendWebResponse(res: ExpressResponse, response: Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => res.setHeader(name, value));
  if (!response.body) {
    res.end();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>)
      .on('error', reject)
      .pipe(res)
      .on('finish', resolve)
      .on('error', reject);
  });
}

/**
 * Serves `POST /mcp` with the MCP server SDK: the 2026-07-28 protocol through `createMcpHandler`
 * (JSON responses: the tools emit no notifications, so `auto` never upgrades to SSE), and 2025-era clients (initialize handshake, no per-request envelope) through a
 * stateless streamable HTTP transport with JSON responses. One server instance per request, bound
 * to the caller's organization; authentication is the API-key middleware's.
 */
@Injectable()
export class McpHttpService implements OnApplicationShutdown {
  private readonly logger = new Logger('Mcp');
  private readonly handler: McpHttpHandler;
  private readonly baseUrl: string;
  private readonly allowedOrigins: Set<string>;

  constructor(
    private readonly tools: McpToolsService,
    config: ConfigService<AllConfig, true>,
  ) {
    this.baseUrl = config.get('app', { infer: true }).publicBaseUrl;
    this.allowedOrigins = allowedMcpOrigins(this.baseUrl);
    this.handler = createMcpHandler((ctx) => this.tools.createServer(orgFrom(ctx)), {
      legacy: 'reject',
      responseMode: 'auto',
      onerror: (err) => this.logger.warn({ err }, `MCP request failed: ${err.message}`),
    });
  }

  async handle(req: ExpressRequest, res: ExpressResponse, org: OrgContext): Promise<void> {
    if (!mcpOriginAllowed(req.headers.origin, this.allowedOrigins)) {
      throw new ForbiddenException(`Origin not allowed: ${req.headers.origin ?? ''}`);
    }
    // A batch would run (and charge) many tool calls under one request's checks: refused whole.
    if (Array.isArray(req.body)) {
      res.status(400).json(BATCH_REFUSED);
      return;
    }

    const request = toWebRequest(req, this.baseUrl);
    const authInfo: AuthInfo = { token: 'api-key', clientId: org.apiKeyId ?? '', scopes: [], extra: { org } };
    const parsedBody: unknown = req.body;

    if (parsedBody !== undefined && (await isLegacyRequest(request, parsedBody))) {
      const server = this.tools.createServer(org);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        await sendWebResponse(res, await transport.handleRequest(request, { parsedBody, authInfo }));
      } finally {
        await server.close().catch(() => undefined);
      }
      return;
    }
    await sendWebResponse(res, await this.handler.fetch(request, { parsedBody, authInfo }));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.handler.close().catch(() => undefined);
  }
}
