/**
 * Typed client for the organization API, generated from openapi/generated.json
 * (`npm run sdk:generate` writes ./schema.d.ts; this file only wires openapi-fetch to it).
 *
 *   const api = createTasteClient('https://taste.example.com', process.env.TASTE_API_KEY!);
 *   const { data } = await api.POST('/api/v1/org/cores', { body: { name: 'Autumn', imageUrls: [url] } });
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths };
export type Core = components['schemas']['CoreResponseDto'];
export type Product = components['schemas']['ProductDto'];

export function createTasteClient(baseUrl: string, apiKey: string, fetchImpl?: typeof fetch) {
  return createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${apiKey}` },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
