import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { buildConfig, validateEnv } from './config/configuration';
import { buildOpenApiDocument } from './openapi/document';

/**
 * Writes openapi/generated.json from the decorators, without a database: `preview` mode builds the
 * module graph without instantiating providers or connecting to anything.
 */
async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? 'openapi/generated.json');
  const config = buildConfig(validateEnv({}));
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  const doc = buildOpenApiDocument(app);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
  await app.close();
  console.log(`wrote ${out}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
