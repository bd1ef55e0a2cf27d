import { ConfigService } from '@nestjs/config';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { AllConfig } from '../config/configuration';
import { OpenAiTasteProvider } from './openai.provider';
import { TasteGenerationError, type TasteImageInput } from './taste.types';

// A local OpenAI-compatible server speaking the Chat Completions wire format; only loopback is contacted.

const API_KEY = 'sk-test-4f1c9a2b7e6d5c3b';
const VISION_MODEL = 'vision-test-model';
const TEXT_MODEL = 'text-test-model';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string;
  delayMs?: number;
  /** Never answer (the client has to time out). */
  hang?: boolean;
}

type Kind = 'vision' | 'condense';
type Responder = (kind: Kind, nth: number, body: Record<string, unknown>) => Reply;

const PROFILE = {
  taste: '  Favours clean, tailored pieces in warm neutrals.   Prefers natural fibres like wool and cotton. ',
  styleAttributes: ['Minimalist', 'tailored', 'minimalist ', 'Classic'],
  tags: ['Camel', 'coat', 'wool', 'camel', 'Cream'],
};

function completion(model: string, content: string): unknown {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 },
  };
}

function apiError(status: number, message: string, type: string, code: string | null): Reply {
  return { status, body: { error: { message, type, code, param: null } } };
}

function ok(kind: Kind, body: Record<string, unknown>): Reply {
  const model = String(body.model);
  if (kind === 'condense') return { body: completion(model, JSON.stringify(PROFILE)) };
  return { body: completion(model, '  A camel wool coat with a notch lapel,\nworn over a cream knit.  ') };
}

const defaultResponder: Responder = (kind, _nth, body) => ok(kind, body);

let server: Server;
let baseUrl: string;
let requests: Recorded[] = [];
let responder: Responder = defaultResponder;
let inFlight = 0;
let maxInFlight = 0;
const hanging: ServerResponse[] = [];

function send(res: ServerResponse, reply: Reply): void {
  const headers = { 'content-type': 'application/json', ...reply.headers };
  res.writeHead(reply.status ?? 200, headers);
  res.end(reply.raw ?? JSON.stringify(reply.body ?? {}));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        send(res, apiError(404, `Unknown route ${req.url}`, 'invalid_request_error', null));
        return;
      }
      const kind: Kind = body.response_format === undefined ? 'vision' : 'condense';
      const nth = requests.filter((r) => kindOf(r) === kind).length;
      const reply = responder(kind, nth, body);
      if (reply.hang) {
        hanging.push(res);
        return;
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        send(res, reply);
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  hanging.forEach((res) => res.destroy());
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  responder = defaultResponder;
  inFlight = 0;
  maxInFlight = 0;
});

function kindOf(r: Recorded): Kind {
  return r.body.response_format === undefined ? 'vision' : 'condense';
}

function provider(overrides: Partial<AllConfig['taste']['openai']> = {}): OpenAiTasteProvider {
  const taste: AllConfig['taste'] = {
    provider: 'openai',
    openai: {
      baseUrl,
      apiKey: API_KEY,
      model: VISION_MODEL,
      textModel: TEXT_MODEL,
      timeoutMs: 5000,
      ...overrides,
    },
  };
  const config = { get: (key: 'taste') => (key === 'taste' ? taste : undefined) };
  return new OpenAiTasteProvider(config as unknown as ConfigService<AllConfig, true>);
}

async function png(width: number, height: number, rgb = { r: 200, g: 30, b: 30 }): Promise<TasteImageInput> {
  const data = await sharp({ create: { width, height, channels: 3, background: rgb } })
    .png()
    .toBuffer();
  return { data, contentType: 'image/png' };
}

async function failure(promise: Promise<unknown>): Promise<TasteGenerationError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(TasteGenerationError);
    const error = err as TasteGenerationError;
    expect(error.message).not.toContain(API_KEY);
    expect(error.message).not.toMatch(/\n\s+at /);
    return error;
  }
  throw new Error('expected a TasteGenerationError');
}

function visionParts(r: Recorded): Array<Record<string, unknown>> {
  const messages = r.body.messages as Array<{ role: string; content: unknown }>;
  expect(messages).toHaveLength(1);
  expect(messages[0].role).toBe('user');
  return messages[0].content as Array<Record<string, unknown>>;
}

const PALETTE = 'image 1: camel 55%, cream 30%; solid\nimage 2: red 80%; solid';

describe('OpenAiTasteProvider', () => {
  let images: TasteImageInput[];

  beforeAll(async () => {
    images = [await png(1200, 800), await png(400, 900, { r: 240, g: 230, b: 210 })];
  });

  it('captions each image, condenses the profile and sends real Chat Completions requests', async () => {
    const result = await provider().describe(images, PALETTE);

    expect(result).toEqual({
      captions: [
        'A camel wool coat with a notch lapel, worn over a cream knit.',
        'A camel wool coat with a notch lapel, worn over a cream knit.',
      ],
      taste: 'Favours clean, tailored pieces in warm neutrals. Prefers natural fibres like wool and cotton.',
      styleAttributes: ['minimalist', 'tailored', 'classic'],
      tags: ['camel', 'coat', 'wool', 'cream'],
    });

    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.method).toBe('POST');
      expect(r.url).toBe('/v1/chat/completions');
      expect(r.headers.authorization).toBe(`Bearer ${API_KEY}`);
    }

    const vision = requests.filter((r) => kindOf(r) === 'vision');
    expect(vision).toHaveLength(2);
    const sizes: Array<{ width?: number; height?: number }> = [];
    for (const r of vision) {
      expect(r.body.model).toBe(VISION_MODEL);
      expect(r.body.stream).toBeUndefined();
      const parts = visionParts(r);
      const text = parts.find((p) => p.type === 'text');
      expect(String(text?.text)).toMatch(/caption|describe/i);
      const image = parts.find((p) => p.type === 'image_url');
      const url = String((image?.image_url as { url: string }).url);
      expect(url.startsWith('data:image/jpeg;base64,')).toBe(true);
      const meta = await sharp(Buffer.from(url.slice('data:image/jpeg;base64,'.length), 'base64')).metadata();
      expect(meta.format).toBe('jpeg');
      expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBeLessThanOrEqual(768);
      sizes.push({ width: meta.width, height: meta.height });
    }
    // 1200x800 is downscaled to fit 768; 400x900 becomes 341x768 (never upscaled beyond the source).
    expect(sizes).toEqual(
      expect.arrayContaining([
        { width: 768, height: 512 },
        { width: 341, height: 768 },
      ]),
    );

    const condense = requests.find((r) => kindOf(r) === 'condense');
    expect(condense?.body.model).toBe(TEXT_MODEL);
    const format = condense?.body.response_format as {
      type: string;
      json_schema: {
        name: string;
        strict: boolean;
        schema: { required: string[]; additionalProperties: boolean };
      };
    };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.name).toBe('taste_profile');
    expect(format.json_schema.strict).toBe(true);
    expect(format.json_schema.schema.required).toEqual(['taste', 'styleAttributes', 'tags']);
    expect(format.json_schema.schema.additionalProperties).toBe(false);
    const prompt = JSON.stringify(condense?.body.messages);
    expect(prompt).toContain('camel 55%, cream 30%; solid');
    expect(prompt).toContain('image 2: A camel wool coat');
  });

  it('keeps at most two vision calls in flight', async () => {
    responder = (kind, _nth, body) => ({ ...ok(kind, body), delayMs: kind === 'vision' ? 80 : 0 });
    const many = [
      await png(50, 50),
      await png(60, 60),
      await png(70, 70),
      await png(80, 80),
      await png(90, 90),
    ];
    const result = await provider().describe(many, PALETTE);
    expect(result.captions).toHaveLength(5);
    expect(maxInFlight).toBe(2);
  });

  it('retries a 500 and then succeeds', async () => {
    responder = (kind, nth, body) =>
      kind === 'vision' && nth === 1
        ? apiError(500, 'The server had an error', 'server_error', null)
        : ok(kind, body);
    const result = await provider().describe(images.slice(0, 1), PALETTE);
    expect(result.captions).toHaveLength(1);
    expect(requests.filter((r) => kindOf(r) === 'vision')).toHaveLength(2);
  });

  it('retries a 429, honouring retry-after, and then succeeds', async () => {
    responder = (kind, nth, body) =>
      kind === 'condense' && nth === 1
        ? {
            ...apiError(429, 'Rate limit reached', 'requests', 'rate_limit_exceeded'),
            headers: { 'retry-after': '1' },
          }
        : ok(kind, body);
    const started = Date.now();
    const result = await provider().describe(images.slice(0, 1), PALETTE);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(result.styleAttributes).toEqual(['minimalist', 'tailored', 'classic']);
    expect(requests.filter((r) => kindOf(r) === 'condense')).toHaveLength(2);
  });

  it('gives up after three 429s with a transient error', async () => {
    responder = () => apiError(429, 'Rate limit reached', 'requests', 'rate_limit_exceeded');
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider rate limited the request (429)');
    expect(error.transient).toBe(true);
    expect(requests).toHaveLength(3);
  });

  it('gives up after three 5xx with a transient error', async () => {
    responder = () => ({
      status: 503,
      raw: 'upstream unavailable',
      headers: { 'content-type': 'text/plain' },
    });
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider returned 5xx');
    expect(error.transient).toBe(true);
    expect(requests).toHaveLength(3);
  });

  it('maps 401 to a key hint without retrying or echoing the key', async () => {
    responder = () =>
      apiError(401, `Incorrect API key provided: ${API_KEY}.`, 'invalid_request_error', 'invalid_api_key');
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider returned 401: check OPENAI_API_KEY');
    expect(error.transient).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('maps 404 to a model / base URL hint without retrying', async () => {
    responder = () =>
      apiError(404, `The model '${VISION_MODEL}' does not exist`, 'invalid_request_error', 'model_not_found');
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider returned 404: check OPENAI_MODEL / OPENAI_BASE_URL');
    expect(error.transient).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('maps 400 to the provider message, once, with the key redacted', async () => {
    responder = () =>
      apiError(400, `Invalid image for key ${API_KEY}:\nunsupported format`, 'invalid_request_error', null);
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe(
      'vision provider rejected the request (400): Invalid image for key [redacted]: unsupported format',
    );
    expect(error.transient).toBe(false);
    expect(requests).toHaveLength(1);
  });

  it('retries the condense call once when the profile JSON is invalid', async () => {
    responder = (kind, nth, body) =>
      kind === 'condense' && nth === 1
        ? { body: completion(String(body.model), '{"taste": "Loves camel", "styleAttributes": [') }
        : ok(kind, body);
    const result = await provider().describe(images.slice(0, 1), PALETTE);
    expect(result.tags).toEqual(['camel', 'coat', 'wool', 'cream']);
    expect(requests.filter((r) => kindOf(r) === 'condense')).toHaveLength(2);
  });

  it('fails when the profile is invalid twice (bad JSON, then a wrong shape)', async () => {
    responder = (kind, nth, body) => {
      if (kind === 'vision') return ok(kind, body);
      const content =
        nth === 1
          ? 'not json at all'
          : JSON.stringify({ taste: 'Loves camel.', styleAttributes: 'minimal', tags: [] });
      return { body: completion(String(body.model), content) };
    };
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider returned an invalid profile');
    expect(error.transient).toBe(false);
    expect(requests.filter((r) => kindOf(r) === 'condense')).toHaveLength(2);
  });

  it('rejects an empty taste and non-string tags as invalid', async () => {
    responder = (kind, nth, body) => {
      if (kind === 'vision') return ok(kind, body);
      const content =
        nth === 1
          ? JSON.stringify({ taste: '   ', styleAttributes: ['minimal'], tags: [] })
          : JSON.stringify({ taste: 'Loves camel.', styleAttributes: ['minimal'], tags: [1, 2] });
      return { body: completion(String(body.model), content) };
    };
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider returned an invalid profile');
  });

  it('caps and cleans the profile lists', async () => {
    responder = (kind, _nth, body) => {
      if (kind === 'vision') return ok(kind, body);
      const content = JSON.stringify({
        taste: 'Loves colour.',
        styleAttributes: Array.from({ length: 12 }, (_, i) => `Style ${i}`),
        tags: [...Array.from({ length: 20 }, (_, i) => ` Tag${i} `), 'x'.repeat(80)],
      });
      return { body: completion(String(body.model), content) };
    };
    const result = await provider().describe(images.slice(0, 1), PALETTE);
    expect(result.styleAttributes).toHaveLength(8);
    expect(result.styleAttributes[0]).toBe('style 0');
    expect(result.tags).toHaveLength(12);
    expect(result.tags[0]).toBe('tag0');
  });

  it('fails on an empty caption', async () => {
    responder = (kind, _nth, body) =>
      kind === 'vision' ? { body: completion(String(body.model), '   ') } : ok(kind, body);
    const error = await failure(provider().describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider returned an empty caption for image 1');
    expect(error.transient).toBe(false);
  });

  it('times out a provider that never answers with a transient error, without retrying', async () => {
    responder = () => ({ hang: true });
    const started = Date.now();
    const error = await failure(provider({ timeoutMs: 300 }).describe(images.slice(0, 1), PALETTE));
    expect(error.message).toBe('vision provider did not answer within 300 ms (OPENAI_TIMEOUT_MS)');
    expect(error.transient).toBe(true);
    expect(requests).toHaveLength(1); // the job processor retries transient failures, not the provider
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports an unreachable provider with its host', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(
      provider({ baseUrl: `http://127.0.0.1:${port}/v1` }).describe(images, PALETTE),
    );
    expect(error.message).toBe(`could not reach the vision provider at 127.0.0.1:${port}`);
    expect(error.transient).toBe(true);
  });

  it('rejects an undecodable image without calling the provider', async () => {
    const broken = { data: Buffer.from('not an image'), contentType: 'image/png' };
    const error = await failure(provider().describe([broken], PALETTE));
    expect(error.message).toBe('image 1 could not be decoded');
    expect(requests).toHaveLength(0);
  });
});
