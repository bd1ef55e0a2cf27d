import './require-node';
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { generateOpenApiDocument } from './openapi/document';

/** `npm run openapi:generate`: writes openapi/generated.json (or the path given) from the decorators. */
async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? 'openapi/generated.json');
  const doc = await generateOpenApiDocument();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(doc, null, 2) + '\n');
  console.log(`wrote ${out}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
