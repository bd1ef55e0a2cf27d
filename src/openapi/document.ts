import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { AppModule } from '../app.module';
import { buildConfig, validateEnv } from '../config/configuration';
import { documentErrorReasons } from './error-reasons';
import { documentResponseHeaders } from './response-headers';

/** Builds the OpenAPI document from the decorators. operationId = handler method name. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Taste Profile Service: Organization API')
    .setDescription(
      'Turns 1 to 5 images into a taste profile (a "core") and matches ready cores against a fashion ' +
        'catalogue. Every operation needs `Authorization: Bearer <API key>`.',
    )
    .setVersion('1.0.0')
    .addBearerAuth(
      // bearerFormat is only a hint, but Nest's default ('JWT') is wrong: keys are opaque `tpk_` strings.
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'tpk_ API key',
        description: 'Organization API key (tpk_...).',
      },
      'bearer',
    )
    .addTag('auth', 'API key verification')
    .addTag('cores', 'Cores: images and their taste profile')
    .addTag('jobs', 'Taste generation jobs')
    .addTag('products', 'Product search for a ready core')
    .addTag('webhooks', 'Signed event deliveries (core.ready, core.failed) to your endpoints')
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (_controllerKey: string, methodKey: string) => methodKey,
  });
  return normaliseDocument(documentResponseHeaders(closeRequestBodies(documentErrorReasons(doc))));
}

/**
 * Every request body schema gets `additionalProperties: false`: the validation pipe refuses unknown
 * fields (400 "property x should not exist"), and a schema-driven contract test that sends one must
 * expect that.
 */
export function closeRequestBodies(doc: OpenAPIObject): OpenAPIObject {
  const schemas = doc.components?.schemas ?? {};
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item) as { requestBody?: unknown }[]) {
      const body = operation?.requestBody as { content?: Record<string, { schema?: { $ref?: string } }> };
      const ref = body?.content?.['application/json']?.schema?.$ref;
      const schema = ref ? schemas[ref.replace('#/components/schemas/', '')] : undefined;
      if (schema && !('$ref' in schema)) schema.additionalProperties = false;
    }
  }
  return doc;
}

function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out as T;
  }
  return value;
}

/** Stable output for a committed file: sorted keys everywhere, so diffs show real changes only. */
export function normaliseDocument(doc: OpenAPIObject): OpenAPIObject {
  return sortKeys(doc);
}

export function setupSwagger(app: INestApplication): void {
  const doc = buildOpenApiDocument(app);
  SwaggerModule.setup('api/docs', app, doc, {
    jsonDocumentUrl: 'api/docs-json',
    swaggerOptions: { persistAuthorization: true },
  });
}

/**
 * The document without a database or Redis: `preview` mode builds the module graph without
 * instantiating providers or connecting to anything.
 */
export async function generateOpenApiDocument(): Promise<OpenAPIObject> {
  const config = buildConfig(validateEnv({}));
  const app = await NestFactory.create(AppModule.forRoot(config), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
