import { Injectable } from '@nestjs/common';
import { SingleBar } from 'cli-progress';
import { printJson, requireOption } from '../cli/cli-output';
import { CatalogueImportService, ImportProgress } from './catalogue-import.service';

export interface CatalogueImportCliOptions {
  file?: string;
  analyseImages?: boolean;
}

/** A progress bar on stderr, only when stderr is a terminal (never in pipes, CI or tests). */
export function progressBar(unit: string): SingleBar | null {
  if (!process.stderr.isTTY) return null;
  return new SingleBar({
    stream: process.stderr,
    format: `{bar} {percentage}% | {value}/{total} ${unit} | {rows} rows | {eta}s left`,
    hideCursor: true,
  });
}

/**
 * What `catalogue:import` does: the import of one feed file with a progress bar (kB read), then the
 * summary as JSON on stdout. Without nest-commander, so that the lean CLI path (`src/cli.ts`,
 * docs/decisions/0032) can run it from a bare application context.
 */
@Injectable()
export class CatalogueImportRunner {
  constructor(private readonly importer: CatalogueImportService) {}

  async run(opts: CatalogueImportCliOptions): Promise<void> {
    const file = requireOption(opts.file, '--file');
    const bar = progressBar('kB');
    let started = false;
    const onProgress = (p: ImportProgress): void => {
      if (!bar) return;
      const total = Math.max(1, Math.round(p.totalBytes / 1024));
      if (!started) {
        bar.start(total, 0, { rows: 0 });
        started = true;
      }
      bar.update(Math.min(total, Math.round(p.bytesRead / 1024)), { rows: p.rows });
    };
    try {
      const summary = await this.importer.importFile(file, {
        onProgress,
        analyseImages: opts.analyseImages === true,
      });
      if (started) bar?.update(bar.getTotal());
      bar?.stop();
      printJson(summary);
    } catch (err) {
      bar?.stop();
      throw err;
    }
  }
}
