import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { AllConfig } from './config/configuration';

let sdk: NodeSDK | null = null;

/**
 * OpenTelemetry tracing (docs/decisions/0015-metrics-and-tracing.md). Loaded by the entry points
 * before any instrumented module (http, express, pg, ioredis, pino) is required, and only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_TRACES_EXPORTER` is set: otherwise this file is never
 * loaded. The exporter, its endpoint, protocol, sampler and batch settings come from the standard
 * `OTEL_*` variables, read by the SDK. Metrics stay on Prometheus (GET /metrics) and logs on
 * stdout, so the SDK exports traces only; pino log lines get `trace_id` and `span_id`.
 */
export function startTracing(config: AllConfig['tracing']): void {
  if (sdk) return;
  sdk = new NodeSDK({
    serviceName: config.serviceName,
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would drown the traces.
        ignoreIncomingRequestHook: (req) => /^\/(health\/|metrics)/.test(req.url ?? ''),
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
      new PinoInstrumentation({ disableLogSending: true }),
    ],
  });
  sdk.start();
}

/** Flushes the spans still buffered; called last on shutdown. */
export async function stopTracing(): Promise<void> {
  await sdk?.shutdown().catch(() => undefined);
  sdk = null;
}
