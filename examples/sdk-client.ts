/**
 * The typed SDK (sdk/) end to end: create a core from one image, poll until its taste profile is
 * ready, search the catalogue.
 *
 *   TASTE_API_KEY=tpk_... npm run example:sdk [-- photo.jpg]     (BASE_URL defaults to http://localhost:3000)
 *
 * Outside this repository, `npm install ./sdk` (or the packed tarball) and import from 'taste-profile-sdk'.
 */
import { createTasteClient } from '../sdk';
import { connection, imageFromArgs, sleep } from './sample-image';

async function main(): Promise<void> {
  const { baseUrl, apiKey } = connection();
  const api = createTasteClient(baseUrl, apiKey);

  const created = await api.POST('/api/v1/org/cores', {
    body: { name: 'SDK example', images: [imageFromArgs()] },
  });
  if (!created.data) throw new Error(`create failed: ${created.error?.message}`);
  const coreId = created.data.coreId;
  console.log(`created core ${coreId} (job ${created.data.jobId})`);

  // Poll until ready or failed, at most 60 times a second apart.
  let core;
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const res = await api.GET('/api/v1/org/cores/{id}', { params: { path: { id: coreId } } });
    if (!res.data) throw new Error(`poll failed: ${res.error?.message}`);
    core = res.data;
    if (core.coreStatus !== 'processing') break;
    await sleep(1000);
  }
  if (core?.coreStatus !== 'ready')
    throw new Error(`core ${coreId} is ${core?.coreStatus}: ${core?.error ?? ''}`);
  console.log(`taste: ${core.taste}`);

  const found = await api.POST('/api/v1/org/cores/{id}/products', {
    params: { path: { id: coreId } },
    body: { query: 'coat', gender: 'women', maxPrice: 400 },
  });
  if (!found.data) throw new Error(`search failed: ${found.error?.message}`);
  console.log(`${found.data.products.length} products for "${found.data.coreName}":`);
  for (const p of found.data.products)
    console.log(`  ${(p.score ?? 0).toFixed(2)}  ${p.title} (${p.designer}, ${p.price} ${p.currency})`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
