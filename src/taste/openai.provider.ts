import { Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import sharp from 'sharp';
import type { AllConfig } from '../config/configuration';
import type { ImageAnalysis } from './image-analysis';
import type { TasteDescription, TasteProvider } from './taste-provider';
import { TasteGenerationError, type TasteImageInput } from './taste.types';
import { mapBounded } from '../common/concurrency';

/** What the provider returns; the local analyst adds the palette and patterns. */
export type ProviderDescription = TasteDescription;

type OpenAiConfig = AllConfig['taste']['openai'];

/** Longest side of the JPEG sent to the vision model. */
const MAX_SIDE = 768;
/** Vision calls in flight at once for one generation. */
const IMAGE_CONCURRENCY = 2;
/**
 * Attempts per request on 429 and 5xx (first try included). Timeouts and connection failures are
 * not retried here: they fail at once as transient and the job processor retries the job, so one
 * hung provider costs at most OPENAI_TIMEOUT_MS per attempt.
 */
const MAX_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 200;
/** Upper bound on a provider's `retry-after`, so one job never sleeps for long. */
const RETRY_AFTER_CAP_MS = 5000;
const MAX_TASTE_CHARS = 1200;
const MAX_WORD_CHARS = 40;
const MAX_STYLE_ATTRIBUTES = 8;
const MAX_TAGS = 12;
const MAX_PROVIDER_MESSAGE_CHARS = 200;
/**
 * The SDK refuses to start without a key, but local OpenAI-compatible servers (Ollama, vLLM,
 * LM Studio) need none. They ignore this placeholder; OpenAI answers 401, which we map to a hint.
 */
const NO_KEY_PLACEHOLDER = 'no-key-configured';
const INVALID_PROFILE = 'vision provider returned an invalid profile';

const CAPTION_PROMPT =
  'Describe the fashion item or outfit in this image in one or two sentences: the garment type, ' +
  'its colours, any pattern, and visible material or texture cues. Answer with the caption only.';

const CONDENSE_PROMPT =
  "You summarise a person's fashion taste from captions of images they chose and a measured colour " +
  'palette. Answer with JSON only: "taste" is 3 to 6 sentences on their style, colour and material ' +
  'preferences; "styleAttributes" is 3 to 8 lowercase style words (for example minimalist, tailored, ' +
  'bohemian); "tags" is up to 12 lowercase tags useful for product search (garments, colours, ' +
  'materials, patterns).';

const PROFILE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['taste', 'styleAttributes', 'tags'],
  properties: {
    taste: { type: 'string', description: '3 to 6 sentences on style, colour and material preferences' },
    styleAttributes: {
      type: 'array',
      description: '3 to 8 lowercase style words',
      items: { type: 'string' },
    },
    tags: { type: 'array', description: 'up to 12 lowercase tags', items: { type: 'string' } },
  },
} as const;

/**
 * The `openai` taste provider: captions each image with a vision model, then condenses the
 * captions and the local palette summary into a taste profile with a text model. Speaks the Chat
 * Completions API, so it works with OpenAI and OpenAI-compatible servers (Ollama, vLLM, LM Studio).
 * Every failure surfaces as a TasteGenerationError: its message (for the operator's log) says what to
 * fix; tenants see only the generic PROVIDER_FAILED_MESSAGE.
 */
@Injectable()
export class OpenAiTasteProvider implements TasteProvider {
  readonly name = 'openai' as const;
  private readonly logger = new Logger(OpenAiTasteProvider.name);
  private readonly options: OpenAiConfig;
  private readonly client: OpenAI;
  private readonly host: string;

  constructor(config: ConfigService<AllConfig, true>) {
    this.options = config.get('taste', { infer: true }).openai;
    this.host = hostOf(this.options.baseUrl);
    this.client = new OpenAI({
      apiKey: this.options.apiKey || NO_KEY_PLACEHOLDER,
      baseURL: this.options.baseUrl,
      timeout: this.options.timeoutMs,
      maxRetries: 0, // retried below, only on 429 and 5xx (the SDK would also retry 408, 409 and timeouts)
      logLevel: 'off', // our own log lines say what failed, without request details
    });
  }

  describeTaste(images: TasteImageInput[], analyses: ImageAnalysis[]): Promise<TasteDescription> {
    return this.describe(images, paletteSummary(analyses));
  }

  async describe(images: TasteImageInput[], paletteSummary: string): Promise<ProviderDescription> {
    const captions = await mapBounded(images, IMAGE_CONCURRENCY, (image, index) =>
      this.caption(image, index),
    );
    const profile = await this.condense(captions, paletteSummary);
    return { captions, ...profile };
  }

  private async caption(image: TasteImageInput, index: number): Promise<string> {
    const jpeg = await toJpeg(image, index);
    const completion = await this.complete({
      model: this.options.model,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: CAPTION_PROMPT },
            { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` } },
          ],
        },
      ],
    });
    const caption = collapse(messageText(completion));
    if (!caption) {
      throw TasteGenerationError.provider(
        `vision provider returned an empty caption for image ${index + 1}`,
        false,
      );
    }
    return caption;
  }

  private async condense(
    captions: string[],
    paletteSummary: string,
  ): Promise<Omit<ProviderDescription, 'captions'>> {
    const lines = captions.map((caption, i) => `image ${i + 1}: ${caption}`);
    const request: ChatCompletionCreateParamsNonStreaming = {
      model: this.options.textModel,
      messages: [
        { role: 'system', content: CONDENSE_PROMPT },
        {
          role: 'user',
          content: `Captions:\n${lines.join('\n')}\n\nMeasured palette:\n${paletteSummary.trim() || 'none'}`,
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'taste_profile', strict: true, schema: PROFILE_SCHEMA },
      },
    };
    for (let attempt = 1; attempt <= 2; attempt++) {
      const profile = parseProfile(messageText(await this.complete(request)));
      if (profile) return profile;
      this.logger.warn(`text model returned an invalid profile (attempt ${attempt} of 2)`);
    }
    throw TasteGenerationError.provider(INVALID_PROFILE, false);
  }

  /** One Chat Completions request with bounded retries; errors come out as TasteGenerationError. */
  private async complete(request: ChatCompletionCreateParamsNonStreaming): Promise<ChatCompletion> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.client.chat.completions.create(request);
      } catch (err) {
        if (attempt >= MAX_ATTEMPTS || !isRetryable(err)) throw this.toTasteError(err);
        const delay = retryDelayMs(err, attempt);
        this.logger.warn(`${describeFailure(err)}; retry ${attempt} of ${MAX_ATTEMPTS - 1} in ${delay} ms`);
        await sleep(delay);
      }
    }
  }

  private toTasteError(err: unknown): TasteGenerationError {
    if (err instanceof TasteGenerationError) return err;
    if (err instanceof APIConnectionTimeoutError) {
      return TasteGenerationError.provider(
        `vision provider did not answer within ${this.options.timeoutMs} ms (OPENAI_TIMEOUT_MS)`,
        true,
      );
    }
    if (err instanceof APIConnectionError) {
      return TasteGenerationError.provider(`could not reach the vision provider at ${this.host}`, true);
    }
    if (err instanceof APIError && typeof err.status === 'number') {
      const status = err.status;
      if (status === 401 || status === 403) {
        return TasteGenerationError.provider(
          `vision provider returned ${status}: check OPENAI_API_KEY`,
          false,
        );
      }
      if (status === 404) {
        return TasteGenerationError.provider(
          'vision provider returned 404: check OPENAI_MODEL / OPENAI_BASE_URL',
          false,
        );
      }
      if (status === 429)
        return TasteGenerationError.provider('vision provider rate limited the request (429)', true);
      if (status >= 500) return TasteGenerationError.provider('vision provider returned 5xx', true);
      const detail = this.providerMessage(err);
      return TasteGenerationError.provider(
        `vision provider rejected the request (${status})${detail ? `: ${detail}` : ''}`,
        false,
      );
    }
    this.logger.error(`unexpected vision provider failure: ${this.redact(errorName(err))}`);
    return TasteGenerationError.provider('vision provider request failed unexpectedly', false);
  }

  /** The provider's own short explanation, on one line, without the API key. */
  private providerMessage(err: APIError): string {
    const body: unknown = err.error;
    const raw = isRecord(body) && typeof body.message === 'string' ? body.message : err.message;
    const text = collapse(this.redact(raw.replace(/^\d{3}\s+/, '')));
    return text.length > MAX_PROVIDER_MESSAGE_CHARS
      ? `${text.slice(0, MAX_PROVIDER_MESSAGE_CHARS - 1)}…`
      : text;
  }

  private redact(text: string): string {
    const key = this.options.apiKey;
    return key ? text.split(key).join('[redacted]') : text;
  }
}

/** Decodes, applies EXIF orientation, flattens transparency on white and fits into MAX_SIDE. */
async function toJpeg(image: TasteImageInput, index: number): Promise<Buffer> {
  try {
    return await sharp(image.data)
      .rotate()
      .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 85 })
      .toBuffer();
  } catch {
    throw new TasteGenerationError(`image ${index + 1} could not be decoded`, false);
  }
}

/** Only 429 and 5xx answers are retried; connection errors and timeouts (APIConnectionError) are not. */
function isRetryable(err: unknown): boolean {
  if (err instanceof APIConnectionError) return false;
  if (!(err instanceof APIError) || typeof err.status !== 'number') return false;
  return err.status === 429 || err.status >= 500;
}

/** `retry-after` (seconds or an HTTP date) when the provider sends one, capped; else 200 ms × 2^n. */
function retryDelayMs(err: unknown, attempt: number): number {
  const backoff = BACKOFF_BASE_MS * 2 ** (attempt - 1);
  if (!(err instanceof APIError) || !(err.headers instanceof Headers)) return backoff;
  const header = err.headers.get('retry-after');
  if (header === null || header.trim() === '') return backoff;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms)) return backoff;
  return Math.min(Math.max(0, Math.round(ms)), RETRY_AFTER_CAP_MS);
}

function describeFailure(err: unknown): string {
  if (err instanceof APIConnectionTimeoutError) return 'vision provider timed out';
  if (err instanceof APIConnectionError) return 'vision provider unreachable';
  if (err instanceof APIError && typeof err.status === 'number')
    return `vision provider returned ${err.status}`;
  return 'vision provider failed';
}

/** The assistant message text; tolerates servers that answer with an array of text parts. */
function messageText(completion: ChatCompletion): string {
  const choices: unknown = completion.choices;
  if (!Array.isArray(choices) || choices.length === 0) return '';
  const first: unknown = choices[0];
  const message: unknown = isRecord(first) ? first.message : undefined;
  const content: unknown = isRecord(message) ? message.content : undefined;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** Parses and normalises the condensed profile; undefined when the JSON or its shape is wrong. */
export function parseProfile(text: string): Omit<ProviderDescription, 'captions'> | undefined {
  // Some compatible servers ignore response_format and wrap the JSON in a Markdown fence.
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(unfenced);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { taste, styleAttributes, tags } = value;
  if (typeof taste !== 'string' || !isStringArray(styleAttributes) || !isStringArray(tags)) return undefined;
  const summary = collapse(taste);
  const attributes = words(styleAttributes, MAX_STYLE_ATTRIBUTES);
  if (!summary || attributes.length === 0) return undefined;
  return {
    taste: summary.length > MAX_TASTE_CHARS ? `${summary.slice(0, MAX_TASTE_CHARS - 1)}…` : summary,
    styleAttributes: attributes,
    tags: words(tags, MAX_TAGS),
  };
}

/** Trimmed, lowercased, deduplicated short words, at most `max` of them. */
function words(values: string[], max: number): string[] {
  const out = new Set<string>();
  for (const value of values) {
    const word = collapse(value).toLowerCase();
    if (word && word.length <= MAX_WORD_CHARS) out.add(word);
    if (out.size === max) break;
  }
  return [...out];
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function errorName(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host || baseUrl;
  } catch {
    return 'the configured OPENAI_BASE_URL';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What the local analyst measured, as short lines a language model can use. */
export function paletteSummary(analyses: ImageAnalysis[]): string {
  return analyses
    .map(
      (a, i) =>
        `image ${i + 1}: ${a.palette.map((p) => `${p.name} ${Math.round(p.share * 100)}%`).join(', ')}; ` +
        `${a.surface.pattern}${a.surface.direction ? ` (${a.surface.direction})` : ''}; ` +
        `${a.character.warmth}, ${a.character.lightness}, ${a.character.saturation}, ${a.character.contrast}`,
    )
    .join('\n');
}
