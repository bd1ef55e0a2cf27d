import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsArray, IsIn, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import {
  DELIVERY_LIST_LIMIT,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_WEBHOOK_URL_LENGTH,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from '../webhook.types';

const EVENT_ENUM = [...WEBHOOK_EVENTS];
const DELIVERY_EVENTS = [...WEBHOOK_EVENTS, 'webhook.test'];

export class WebhookCreateDto {
  @ApiProperty({
    description:
      'https URL that receives the events: port 443 and a public address (the same outbound rules as ' +
      'image URLs); redirects are not followed.',
    format: 'uri',
    maxLength: MAX_WEBHOOK_URL_LENGTH,
    example: 'https://hooks.example.com/taste',
  })
  @IsString()
  @MinLength(1, { message: 'url must not be empty' })
  @MaxLength(MAX_WEBHOOK_URL_LENGTH)
  url!: string;

  @ApiPropertyOptional({
    description: 'Events to receive (default: all of them).',
    enum: EVENT_ENUM,
    enumName: 'WebhookEvent',
    isArray: true,
    minItems: 1,
    example: ['core.ready', 'core.failed'],
  })
  // Absent means all; null is no subset of the events (400), which @IsOptional let through. Non-empty
  // and without repeats: subscribedEvents() in the service, for this and the dashboard's form.
  @ValidateIf((_dto, value) => value !== undefined)
  @IsArray()
  @IsIn(EVENT_ENUM, { each: true, message: `each value in events must be one of: ${EVENT_ENUM.join(', ')}` })
  events?: WebhookEvent[];

  @ApiPropertyOptional({
    description: 'Free text for your own reference.',
    maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH,
    example: 'Production order pipeline',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_WEBHOOK_DESCRIPTION_LENGTH)
  description?: string;
}

export class WebhookLastDeliveryDto {
  @ApiProperty({ description: 'When the attempt was made.', format: 'date-time' }) at!: string;
  @ApiProperty({ description: 'Event type.', enum: DELIVERY_EVENTS, example: 'core.ready' }) event!: string;
  @ApiProperty({
    description: 'HTTP status the endpoint answered; null when no response came.',
    type: 'integer',
    nullable: true,
    example: 200,
  })
  httpStatus!: number | null;
  @ApiProperty({
    description: 'Attempt number of its delivery (1 for the first).',
    type: 'integer',
    minimum: 1,
  })
  attempt!: number;
  @ApiProperty({ description: 'Whether the endpoint answered 2xx in time.' }) succeeded!: boolean;
}

export class WebhookDto {
  @ApiProperty({ description: 'Webhook endpoint id.' }) id!: string;
  @ApiProperty({ description: 'Receiving URL.', format: 'uri' }) url!: string;
  @ApiProperty({
    description: 'Subscribed events.',
    enum: EVENT_ENUM,
    enumName: 'WebhookEvent',
    isArray: true,
  })
  events!: WebhookEvent[];
  @ApiProperty({ description: 'Description, or null.', type: 'string', nullable: true })
  description!: string | null;
  @ApiProperty({ description: 'When the endpoint was registered.', format: 'date-time' }) createdAt!: string;
}

export class WebhookCreateResponseDto extends WebhookDto {
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 201 })
  status!: number;
  @ApiProperty({
    description:
      'Signing secret (`whsec_` + base64 of 32 random bytes) for the Standard Webhooks signature. ' +
      'Shown only in this response: store it now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string;
}

@ApiExtraModels(WebhookLastDeliveryDto)
export class WebhookListItemDto extends WebhookDto {
  @ApiProperty({
    description: 'The latest delivery attempt to this endpoint, or null before the first.',
    // OAS 3.0 has no null type, and `nullable` beside `allOf: [$ref]` still refuses null (the
    // referenced object schema applies to it too): strict validators rejected every endpoint without a
    // delivery. So the null is an alternative of its own.
    anyOf: [
      { $ref: getSchemaPath(WebhookLastDeliveryDto) },
      { type: 'object', nullable: true, enum: [null] },
    ],
  })
  lastDelivery!: WebhookLastDeliveryDto | null;
}

export class WebhookListResponseDto {
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 200 })
  status!: number;
  @ApiProperty({ type: [WebhookListItemDto], description: 'Newest first. Never includes the secret.' })
  webhooks!: WebhookListItemDto[];
}

export class WebhookDeleteResponseDto {
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 200 })
  status!: number;
  @ApiProperty({ description: 'Id of the deleted endpoint.' }) id!: string;
  @ApiProperty({ description: 'Always true.', example: true }) deleted!: boolean;
}

export class WebhookTestResponseDto {
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 202 })
  status!: number;
  @ApiProperty({ description: 'Delivery id: the `webhook-id` header of every attempt.' }) deliveryId!: string;
}

export class WebhookDeliveryDto {
  @ApiProperty({ description: 'Attempt id.' }) id!: string;
  @ApiProperty({ description: 'Event type.', enum: DELIVERY_EVENTS, example: 'core.ready' }) event!: string;
  @ApiProperty({
    description: 'Attempt number of its delivery (1 for the first).',
    type: 'integer',
    minimum: 1,
  })
  attempt!: number;
  @ApiProperty({ description: 'When the attempt was made.', format: 'date-time' }) at!: string;
  @ApiProperty({
    description: 'HTTP status the endpoint answered; null when no response came.',
    type: 'integer',
    nullable: true,
  })
  httpStatus!: number | null;
  @ApiProperty({ description: 'Short reason of a failure, or null.', type: 'string', nullable: true })
  error!: string | null;
  @ApiProperty({ description: 'Whether the endpoint answered 2xx in time.' }) succeeded!: boolean;
}

export class WebhookDeliveryListResponseDto {
  @ApiProperty({ description: 'HTTP status code of the response.', type: 'integer', example: 200 })
  status!: number;
  @ApiProperty({
    type: [WebhookDeliveryDto],
    description: `Delivery attempts, newest first, at most ${DELIVERY_LIST_LIMIT}.`,
    maxItems: DELIVERY_LIST_LIMIT,
  })
  deliveries!: WebhookDeliveryDto[];
}
