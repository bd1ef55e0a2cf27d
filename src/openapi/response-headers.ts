import type { OpenAPIObject } from '@nestjs/swagger';
import type {
  HeaderObject,
  ReferenceObject,
  ResponseObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** The budgets whose `X-RateLimit-*` headers a response can carry (docs/decisions/0005). */
const BUDGETS: [suffix: string, what: string, limit: number][] = [
  ['', "this API key's general budget (every endpoint)", 120],
  ['Create', "the organization's creation budget (create and image-replacing PATCH, REST and MCP)", 5],
  ['Search', "the organization's search budget (REST and MCP)", 20],
];

/** The organization budget an operation's admitted answers also report. */
const OPERATION_BUDGET: Record<string, string> = {
  createCore: 'Create',
  updateCore: 'Create',
  searchProducts: 'Search',
};

function headerComponents(): Record<string, HeaderObject> {
  const headers: Record<string, HeaderObject> = {
    RequestId: {
      description:
        "The request's id (also `requestId` in an error body): quote it to support. A safe `X-Request-Id` sent with the request is kept.",
      schema: { type: 'string' },
      example: 'd3b07384-d113-4ec6-8e8b-6c2f0f6a1b2c',
    },
    WwwAuthenticate: {
      description: 'The scheme to authenticate with.',
      schema: { type: 'string', enum: ['Bearer'] },
    },
  };
  for (const [suffix, what, limit] of BUDGETS) {
    headers[`RateLimitLimit${suffix}`] = {
      description: `Requests a 60-second window admits under ${what}.`,
      schema: { type: 'integer' },
      example: limit,
    };
    headers[`RateLimitRemaining${suffix}`] = {
      description: `Requests left in the current window under ${what}.`,
      schema: { type: 'integer', minimum: 0 },
      example: limit - 1,
    };
    headers[`RateLimitReset${suffix}`] = {
      description: `Whole seconds until the oldest request in the window of ${what} leaves it and frees a unit (over the limit: the wait).`,
      schema: { type: 'integer', minimum: 0 },
      example: 60,
    };
  }
  return headers;
}

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

function rateLimitHeaders(suffix: string): Record<string, ReferenceObject> {
  const s = suffix ? `-${suffix}` : '';
  return {
    [`X-RateLimit-Limit${s}`]: ref(`RateLimitLimit${suffix}`),
    [`X-RateLimit-Remaining${s}`]: ref(`RateLimitRemaining${suffix}`),
    [`X-RateLimit-Reset${s}`]: ref(`RateLimitReset${suffix}`),
  };
}

/**
 * The headers every response of the API carries, as the contract (openapi/taste-profile.v1.yaml) lists
 * them: `X-Request-Id` always; `WWW-Authenticate` on a 401; the general `X-RateLimit-*` on the answers
 * to an authenticated request (not a 401, whose request was never counted; a 503 while Redis is down has
 * none, one after it, `enqueue_failed`, has them); and the organization budget's on a create's, an image
 * replacement's or a search's answers.
 */
export function documentResponseHeaders(doc: OpenAPIObject): OpenAPIObject {
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...headerComponents() } };
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as {
      operationId?: string;
      responses?: Record<string, ResponseObject>;
    }[]) {
      if (!op?.responses) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const own = OPERATION_BUDGET[op.operationId ?? ''];
        const extra: Record<string, ReferenceObject> = { 'X-Request-Id': ref('RequestId') };
        if (status === '401') extra['WWW-Authenticate'] = ref('WwwAuthenticate');
        else {
          Object.assign(extra, rateLimitHeaders(''));
          if (own) Object.assign(extra, rateLimitHeaders(own));
        }
        response.headers = { ...response.headers, ...extra };
      }
    }
  }
  return doc;
}
