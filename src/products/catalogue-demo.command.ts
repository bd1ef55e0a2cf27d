import { Command, CommandRunner, Option } from 'nest-commander';
import { printJson } from '../cli/cli-output';
import { progressBar } from './catalogue-import.command';
import { DEFAULT_DEMO_COUNT, DemoCatalogueService } from './demo-catalogue.service';

interface DemoOpts {
  count?: number;
}

@Command({
  name: 'catalogue:demo',
  description: `Load a generated demo catalogue with images (default ${DEFAULT_DEMO_COUNT} products, idempotent)`,
})
export class CatalogueDemoCommand extends CommandRunner {
  constructor(private readonly demo: DemoCatalogueService) {
    super();
  }

  async run(_args: string[], opts: DemoOpts): Promise<void> {
    const count = opts.count ?? DEFAULT_DEMO_COUNT;
    const bar = progressBar('images');
    let started = false;
    const summary = await this.demo.load({
      count,
      onProgress: (done, total) => {
        if (!bar) return;
        if (!started) {
          bar.start(total, 0, { rows: count });
          started = true;
        }
        bar.update(done, { rows: count });
      },
    });
    bar?.stop();
    printJson(summary);
  }

  @Option({ flags: '--count <n>', description: `Number of products (default ${DEFAULT_DEMO_COUNT})` })
  parseCount(v: string): number {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > 1_000_000)
      throw new Error('--count must be an integer 1..1000000');
    return n;
  }
}
