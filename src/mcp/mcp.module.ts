import { Module } from '@nestjs/common';
import { CoresModule } from '../cores/cores.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { ProductsModule } from '../products/products.module';
import { RateLimitModule } from '../throttling/throttling.module';
import { McpController } from './mcp.controller';
import { McpNoOAuthController } from './mcp-no-oauth.controller';
import { McpHttpService } from './mcp-http.service';
import { McpToolsService } from './mcp-tools.service';

/** MCP tools over Streamable HTTP at `POST /mcp`, calling the same services as the REST API. */
@Module({
  imports: [CoresModule, ProductsModule, RateLimitModule, IdempotencyModule],
  controllers: [McpController, McpNoOAuthController],
  providers: [McpToolsService, McpHttpService],
})
export class McpModule {}
