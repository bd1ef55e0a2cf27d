import { Command, CommandRunner, Option } from 'nest-commander';
import { CatalogueImportCliOptions, CatalogueImportRunner } from './catalogue-import.runner';

export { progressBar } from './catalogue-import.runner';

@Command({
  name: 'catalogue:import',
  description:
    'Import a Google Merchant Center feed (CSV, TSV or JSON lines): prints { inserted, updated, unchanged, rejected, rejections }',
})
export class CatalogueImportCommand extends CommandRunner {
  constructor(private readonly runner: CatalogueImportRunner) {
    super();
  }

  async run(_args: string[], opts: CatalogueImportCliOptions): Promise<void> {
    await this.runner.run(opts);
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
