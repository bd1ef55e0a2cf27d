import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { AnalysisOutcome, AnalysisTask } from './analysis-worker';
import type { ImageAnalysis, LightReading } from './image-analysis';
import { TasteGenerationError } from './taste.types';

/**
 * How much lower than the process the analysis threads run (nice(2) increment, Linux per thread).
 * Generation is background work: when a core's analysis and an API request want the same core, the
 * request wins and the analysis takes the idle time (docs/decisions/0042-analysis-in-low-priority-threads.md).
 */
export const ANALYSIS_NICE_INCREMENT = 10;

/** Threads are started on demand and leave after this much idle time, so a quiet process holds none. */
const IDLE_TIMEOUT_MS = 60_000;

/**
 * The local analyst's measurements in worker threads (piscina): the analysis is 30-90 ms of
 * JavaScript per image, which on the main thread blocked every HTTP request of a `ROLE=all` process
 * for that long. Under TypeScript (the tests) the threads load the TypeScript worker through SWC's hook.
 */
export class AnalysisPool {
  private pool?: Piscina<AnalysisTask, AnalysisOutcome>;

  constructor(private readonly threads = Math.min(2, availableParallelism())) {}

  /** `analyseImage` in a thread: `otherLight` or `light` as it takes them. */
  async analyse(
    data: Buffer,
    index: number,
    opts: { otherLight?: boolean; light?: LightReading } = {},
  ): Promise<ImageAnalysis> {
    const outcome = await this.threadPool().run({
      data,
      index,
      otherLight: opts.otherLight ?? false,
      light: opts.light,
    });
    if ('analysis' in outcome) return outcome.analysis;
    const { message, transient, publicMessage } = outcome.failure;
    throw new TasteGenerationError(message, transient, publicMessage);
  }

  /** Ends the threads; a task still queued is rejected. Idle threads never hold the process open. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close({ force: false });
  }

  private threadPool(): Piscina<AnalysisTask, AnalysisOutcome> {
    if (this.pool) return this.pool;
    const typescript = __filename.endsWith('.ts');
    this.pool = new Piscina<AnalysisTask, AnalysisOutcome>({
      filename: join(__dirname, typescript ? 'analysis-worker.ts' : 'analysis-worker.js'),
      execArgv: typescript ? ['--require', '@swc-node/register'] : [],
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: IDLE_TIMEOUT_MS,
      niceIncrement: ANALYSIS_NICE_INCREMENT,
    });
    return this.pool;
  }
}
