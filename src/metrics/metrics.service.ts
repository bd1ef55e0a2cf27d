import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type Redis from 'ioredis';
import { withTimeout } from '../common/concurrency';
import { controllerRoute } from '../common/method-not-allowed';
import { AllConfig } from '../config/configuration';
import { REDIS } from '../redis/redis.module';
import { CATALOGUE_IMPORT_METRICS_KEY } from './catalogue-import-metrics';

export type RateLimitBudget = 'general' | 'create' | 'search';
export type GenerationOutcome = 'ready' | 'failed';
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** How long a scrape waits for one queue's counts before it answers without them. */
export const QUEUE_COUNTS_TIMEOUT_MS = 1000;
export type QueueState = (typeof QUEUE_STATES)[number];
export const IMPORT_OUTCOMES = ['inserted', 'updated', 'unchanged', 'rejected'] as const;
export { CATALOGUE_IMPORT_METRICS_KEY };

/** The `route` label of a request no route matched (never the raw URL: it would explode the series). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Whether GET /metrics may be answered, and if not, with which status. */
export type MetricsAccess = 'allowed' | 'unauthorized' | 'not_found';

type QueueCounts = () => Promise<Partial<Record<QueueState, number>>>;

/**
 * The process's Prometheus registry (one per application, so several apps in one test process
 * do not share series) and the named series of the README's Observability section (docs/decisions/0015-metrics-and-tracing.md). Feature
 * code records through the small methods below; nothing here touches the database.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly token: Buffer | null;
  private readonly production: boolean;
  private readonly queues = new Map<string, QueueCounts>();

  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429, by budget',
    labelNames: ['budget'] as const,
    registers: [this.registry],
  });
  private readonly generationJobs = new Counter({
    name: 'generation_jobs_total',
    help: 'Finished generation jobs by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly generationDuration = new Histogram({
    name: 'generation_duration_seconds',
    help: 'Time from a generation job starting to its result being written',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly generationPerImage = new Histogram({
    name: 'generation_seconds_per_image',
    help: 'Taste engine time of a generation divided by its number of images',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly providerErrors = new Counter({
    name: 'taste_provider_errors_total',
    help: 'Errors of the taste provider, by provider and whether they are retried',
    labelNames: ['provider', 'kind'] as const,
    registers: [this.registry],
  });
  private readonly webhookDeliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(config: ConfigService<AllConfig, true>, @Optional() @Inject(REDIS) redis?: Redis) {
    const token = config.get('metrics', { infer: true }).token;
    this.token = token ? digest(token) : null;
    this.production = config.get('app', { infer: true }).env === 'production';
    collectDefaultMetrics({ register: this.registry });
    for (const budget of ['general', 'create', 'search'] as const)
      this.rateLimitRejections.inc({ budget }, 0);
    for (const outcome of ['ready', 'failed'] as const) this.generationJobs.inc({ outcome }, 0);
    if (redis) this.watchImports(redis);
    const queues = this.queues;
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs per queue and state, read from BullMQ at scrape time',
      labelNames: ['queue', 'state'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        await Promise.all(
          [...queues].map(async ([queue, counts]) => {
            // Bounded: a scrape during a Redis outage answers without the queue's gauge, never hangs.
            const c = await withTimeout(counts(), QUEUE_COUNTS_TIMEOUT_MS).catch(() => null);
            if (!c) return;
            for (const state of QUEUE_STATES) this.set({ queue, state }, c[state] ?? 0);
          }),
        );
      },
    });
  }

  /**
   * `catalogue_import_rows_total` and `catalogue_imports_total` from the Redis hash the imports add
   * to: each scrape increments by the growth since the last value seen, so the counters stay
   * monotonic in this process (a hash that shrank, e.g. flushed, is only re-based).
   */
  private watchImports(redis: Redis): void {
    const seen = new Map<string, number>();
    const read = async (): Promise<Record<string, string> | null> =>
      redis.hgetall(CATALOGUE_IMPORT_METRICS_KEY).catch(() => null);
    const grow = (field: string, value: string | undefined): number => {
      const now = Number(value ?? 0) || 0;
      const before = seen.get(field) ?? 0;
      seen.set(field, now);
      return Math.max(0, now - before);
    };
    new Counter({
      name: 'catalogue_import_rows_total',
      help: 'Catalogue import rows by outcome (all imports, CLI included), read from Redis at scrape time',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
      async collect() {
        const hash = await read();
        for (const outcome of IMPORT_OUTCOMES) this.inc({ outcome }, hash ? grow(outcome, hash[outcome]) : 0);
      },
    });
    new Counter({
      name: 'catalogue_imports_total',
      help: 'Finished catalogue imports (all imports, CLI included), read from Redis at scrape time',
      registers: [this.registry],
      async collect() {
        const hash = await read();
        this.inc(hash ? grow('imports', hash.imports) : 0);
      },
    });
  }

  /** A queue whose depth `queue_jobs` reports (read when Prometheus scrapes). */
  watchQueue(name: string, counts: QueueCounts): void {
    this.queues.set(name, counts);
  }

  rateLimitRejected(budget: RateLimitBudget): void {
    this.rateLimitRejections.inc({ budget });
  }

  generationFinished(outcome: GenerationOutcome, seconds: number): void {
    this.generationJobs.inc({ outcome });
    this.generationDuration.observe(seconds);
  }

  tasteEngineRan(seconds: number, images: number): void {
    if (images > 0) this.generationPerImage.observe(seconds / images);
  }

  providerError(provider: string, transient: boolean): void {
    this.providerErrors.inc({ provider, kind: transient ? 'transient' : 'permanent' });
  }

  /** For the webhooks feature: one call per delivery attempt (`delivered`, `failed`, ...). */
  webhookDelivery(outcome: string): void {
    this.webhookDeliveries.inc({ outcome });
  }

  /**
   * With METRICS_TOKEN: only `Authorization: Bearer <token>` (compared in constant time). Without
   * it: open outside production, hidden (404) in production.
   */
  access(authorization: string | undefined): MetricsAccess {
    if (!this.token) return this.production ? 'not_found' : 'allowed';
    const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1];
    return given && timingSafeEqual(digest(given), this.token) ? 'allowed' : 'unauthorized';
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Express middleware recording `http_request_duration_seconds`. `route` is the matched route
   * pattern (`/api/v1/org/cores/:id`), read when the response finishes.
   */
  httpMiddleware() {
    const histogram = this.httpDuration;
    return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
      const start = process.hrtime.bigint();
      res.once('finish', () => {
        const route = controllerRoute(req) ?? UNMATCHED_ROUTE;
        histogram.observe(
          { method: req.method ?? 'GET', route, status_code: res.statusCode },
          Number(process.hrtime.bigint() - start) / 1e9,
        );
      });
      next();
    };
  }

  /** The worker role has no HTTP app: this plain handler serves GET /metrics on METRICS_PORT. */
  async serveWorker(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const access =
      req.method === 'GET' && req.url === '/metrics' ? this.access(req.headers.authorization) : 'not_found';
    if (access !== 'allowed') {
      const status = access === 'unauthorized' ? 401 : 404;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: METRICS_MESSAGES[access], status, code: access }));
      return;
    }
    const body = await this.render();
    res.writeHead(200, { 'Content-Type': this.contentType });
    res.end(body);
  }
}

export const METRICS_MESSAGES: Record<Exclude<MetricsAccess, 'allowed'>, string> = {
  unauthorized: 'Metrics require "Authorization: Bearer <METRICS_TOKEN>".',
  not_found: 'Cannot GET /metrics',
};

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
