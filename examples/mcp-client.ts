/**
 * An MCP client (@modelcontextprotocol/client) against POST /mcp: list the tools, create_core, poll
 * get_core until ready, search_products.
 *
 *   TASTE_API_KEY=tpk_... npm run example:mcp [-- photo.jpg]     (BASE_URL defaults to http://localhost:3000)
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connection, imageFromArgs, sleep } from './sample-image';

interface ToolResult {
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
  isError?: boolean;
}

async function main(): Promise<void> {
  const { baseUrl, apiKey } = connection();
  const client = new Client({ name: 'taste-profile-example', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    console.log(`tools: ${tools.map((t) => t.name).join(', ')}`);

    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as ToolResult;
      if (result.isError) throw new Error(`${name}: ${(result.content ?? []).map((c) => c.text).join(' ')}`);
      return result.structuredContent ?? {};
    };

    const created = await call('create_core', { name: 'MCP example', images: [imageFromArgs()] });
    const coreId = created.coreId as string;
    console.log(`created core ${coreId}`);

    let core: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 60; attempt += 1) {
      core = await call('get_core', { coreId });
      if (core.coreStatus !== 'processing') break;
      await sleep(1000);
    }
    if (core.coreStatus !== 'ready')
      throw new Error(`core ${coreId} is ${String(core.coreStatus)}: ${String(core.error)}`);
    console.log(`taste: ${String(core.taste)}`);

    const found = await call('search_products', { coreId, query: 'coat', gender: 'women', maxPrice: 400 });
    const products = found.products as { title: string; score?: number }[];
    console.log(`${products.length} products for "${String(found.coreName)}":`);
    for (const p of products) console.log(`  ${(p.score ?? 0).toFixed(2)}  ${p.title}`);
  } finally {
    await client.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
