import { SingleBar } from 'cli-progress';
import { Command, CommandRunner, Option } from 'nest-commander';
import { printJson, requireOption } from '../cli/cli-output';
import { CatalogueImportService, ImportProgress } from './catalogue-import.service';

interface ImportOpts {
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

@Command({
  name: 'catalogue:import',
  description:
    'Import a Google Merchant Center feed (CSV, TSV or JSON lines): prints { inserted, updated, unchanged, rejected, rejections }',
})
export class CatalogueImportCommand extends CommandRunner {
  constructor(private readonly importer: CatalogueImportService) {
    super();
  }

  async run(_args: string[], opts: ImportOpts): Promise<void> {
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

  @Option({
    flags: '--file <path>',
    description: 'Feed file: .csv, .tsv, .jsonl/.ndjson (others are sniffed)',
  })
  parseFile(v: string): string {
    return v;
  }

  @Option({
    flags: '--analyse-images',
    description: 'Fetch each product image (SSRF-safe) and take its colour from the image analysis',
  })
  parseAnalyseImages(): boolean {
    return true;
  }
}
