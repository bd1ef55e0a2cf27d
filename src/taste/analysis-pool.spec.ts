import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { garmentPng } from '../../test/support/garments';
import { AnalysisPool, ANALYSIS_NICE_INCREMENT } from './analysis-pool';
import { analyseImage } from './image-analysis';
import { TasteGenerationError } from './taste.types';

const photo = readFileSync(join(__dirname, '../../test/fixtures/taste/circuit-board.jpg'));

/** The nice value of each of this process's threads, from /proc (Linux). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name "(...)": state is field 3, nice is field 19.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('AnalysisPool (worker threads)', () => {
  const pool = new AnalysisPool(1);
  afterAll(() => pool.close());

  it('measures exactly what the analyst measures on the main thread', async () => {
    const garment = await garmentPng({ colour: '#c29b6c', second: '#1b2440', pattern: 'striped' });
    for (const [index, data] of [photo, garment].entries())
      expect(await pool.analyse(data, index)).toEqual(await analyseImage(data, index));
  });

  it('keeps a generation error a TasteGenerationError, with its image number and not transient', async () => {
    const err: unknown = await pool.analyse(Buffer.from('not an image'), 3).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TasteGenerationError);
    expect((err as TasteGenerationError).message).toBe('image 4 could not be decoded as an image');
    expect((err as TasteGenerationError).transient).toBe(false);
  });

  it('runs its threads at a lower priority than the process', async () => {
    const own = threadNiceValues()[0];
    await pool.analyse(photo, 0);
    expect(threadNiceValues()).toContain(own + ANALYSIS_NICE_INCREMENT);
  });
});
