import { createServer, type Server } from 'node:http';

/**
 * A slow OpenAI-compatible Chat Completions server (the wire protocol of the `openai` provider):
 * captions for vision requests, a taste profile for the condense request, each after `delayMs`.
 */
export interface FakeOpenAi {
  baseUrl: string;
  /** Vision requests received so far. */
  visionRequests(): number;
  close(): Promise<void>;
}

export async function startFakeOpenAi(delayMs: number): Promise<FakeOpenAi> {
  let vision = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model?: string; response_format?: unknown };
      const condense = body.response_format !== undefined;
      if (!condense) vision++;
      const content = condense
        ? JSON.stringify({
            taste: 'Favours tailored pieces in warm neutrals.',
            styleAttributes: ['minimalist'],
            tags: ['camel', 'wool'],
          })
        : 'A camel wool coat over a cream knit.';
      setTimeout(
        () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              id: `chatcmpl-${vision}`,
              object: 'chat.completion',
              created: Math.floor(Date.now() / 1000),
              model: body.model ?? 'm',
              choices: [
                { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' },
              ],
              usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
            }),
          );
        },
        condense ? 0 : delayMs,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    visionRequests: () => vision,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
