import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Org, OrgContext } from '../auth/org-context';
import { ApiOrgOperation } from '../common/api-docs.decorators';
import { ErrorResponseDto } from '../common/error-response.dto';
import {
  WebhookCreateDto,
  WebhookCreateResponseDto,
  WebhookDeleteResponseDto,
  WebhookDeliveryListResponseDto,
  WebhookListResponseDto,
  WebhookTestResponseDto,
} from './dto/webhook.dto';
import { WebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@Controller('api/v1/org/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Register a webhook endpoint',
    description:
      'Events (core.ready, core.failed) are POSTed to the URL, signed with the Standard Webhooks scheme ' +
      '(webhook-id, webhook-timestamp, webhook-signature headers). The signing secret is returned only ' +
      'here. At most 10 endpoints per organization.',
  })
  @ApiCreatedResponse({ type: WebhookCreateResponseDto })
  @ApiResponse({
    status: 409,
    description: 'The organization already has 10 webhook endpoints.',
    type: ErrorResponseDto,
  })
  @ApiOrgOperation(400, 413, 415)
  createWebhook(@Org() ctx: OrgContext, @Body() dto: WebhookCreateDto): Promise<WebhookCreateResponseDto> {
    return this.webhooks.create(ctx, dto);
  }

  @Get()
  @ApiOperation({
    summary: 'List webhook endpoints',
    description: 'Newest first, with the latest delivery attempt of each. Never the secret.',
  })
  @ApiOkResponse({ type: WebhookListResponseDto })
  @ApiOrgOperation()
  listWebhooks(@Org() ctx: OrgContext): Promise<WebhookListResponseDto> {
    return this.webhooks.list(ctx);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description: 'Pending deliveries to it are dropped.',
  })
  @ApiParam({ name: 'id', description: 'Webhook endpoint id.' })
  @ApiOkResponse({ type: WebhookDeleteResponseDto })
  @ApiOrgOperation(404)
  deleteWebhook(@Org() ctx: OrgContext, @Param('id') id: string): Promise<WebhookDeleteResponseDto> {
    return this.webhooks.remove(ctx, id);
  }

  @Post(':id/test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a test event',
    description: 'Queues a `webhook.test` event with `data: { webhookId }` to the endpoint.',
  })
  @ApiParam({ name: 'id', description: 'Webhook endpoint id.' })
  @ApiAcceptedResponse({ type: WebhookTestResponseDto })
  @ApiOrgOperation(404)
  testWebhook(@Org() ctx: OrgContext, @Param('id') id: string): Promise<WebhookTestResponseDto> {
    return this.webhooks.sendTest(ctx, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: 'Recent delivery attempts',
    description: 'Every attempt is a row (its own id), newest first, at most 50.',
  })
  @ApiParam({ name: 'id', description: 'Webhook endpoint id.' })
  @ApiOkResponse({ type: WebhookDeliveryListResponseDto })
  @ApiOrgOperation(404)
  listDeliveries(@Org() ctx: OrgContext, @Param('id') id: string): Promise<WebhookDeliveryListResponseDto> {
    return this.webhooks.deliveries(ctx, id);
  }
}
