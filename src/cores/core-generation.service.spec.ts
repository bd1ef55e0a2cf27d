import { OrgContext } from '../auth/org-context';
import { JobsService } from '../jobs/jobs.service';
import { TasteService } from '../taste/taste.service';
import { TasteGenerationError } from '../taste/taste.types';
import { colourPng } from '../../test/support/cores';
import { useCoresModule } from '../../test/support/cores-module';
import { GENERATION_UNEXPECTED } from './core-generation.service';

/**
 * CoreGenerationService.run on the real PostgreSQL, Redis and file store, called directly as the
 * processor would. The taste engine is the real local one, except where a test makes it fail.
 */
describe('CoreGenerationService.run (real database)', () => {
  const s = useCoresModule();
  const jobs = (): JobsService => s.m.moduleRef.get(JobsService);

  afterEach(() => jest.restoreAllMocks());

  /** A core still processing its first job (this module has no worker to run it). */
  async function processingCore(): Promise<{ ctx: OrgContext; coreId: string; jobId: string }> {
    const ctx = await s.m.newOrg();
    const { coreId, jobId } = await s.cores.create(ctx, { name: 'Generated', images: [s.red] });
    return { ctx, coreId, jobId };
  }

  const failWith = (err: Error) =>
    jest.spyOn(s.m.moduleRef.get(TasteService), 'generate').mockRejectedValue(err);

  it('writes the profile: the core and its job are ready; a second run of the same job changes nothing', async () => {
    const { ctx, coreId, jobId } = await processingCore();
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, false)).toBe('done');
    const core = await s.cores.get(ctx, coreId);
    expect(core).toEqual(
      expect.objectContaining({ coreStatus: 'ready', error: null, taste: expect.any(String) }),
    );
    expect(core.images[0].caption).toEqual(expect.any(String));
    expect(await jobs().statusOf(jobId)).toBe('ready');
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, true)).toBe('done');
    expect(await s.cores.get(ctx, coreId)).toEqual(core);
  });

  it('a superseded job is marked failed and leaves the core to its current job', async () => {
    const { ctx, coreId, jobId } = await processingCore();
    const replaced = await s.cores.replaceImages(ctx, coreId, { images: [await colourPng('#1c2541')] });
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, true)).toBe('done');
    expect(await jobs().statusOf(jobId)).toBe('failed');
    expect(await s.m.coreRow(coreId)).toEqual(
      expect.objectContaining({ status: 'processing', currentJobId: replaced.jobId, taste: null }),
    );
  });

  it('a job whose core was deleted does nothing', async () => {
    const { ctx, coreId, jobId } = await processingCore();
    await s.cores.remove(ctx, coreId);
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, true)).toBe('done');
    expect(await s.m.coreRow(coreId)).toBeUndefined();
  });

  it('a permanent engine error fails the core and the job with the public message only', async () => {
    const { ctx, coreId, jobId } = await processingCore();
    failWith(
      new TasteGenerationError('provider returned 401 for proj_internal', false, 'The engine refused.'),
    );
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, false)).toBe('done');
    expect(await s.cores.get(ctx, coreId)).toEqual(
      expect.objectContaining({ coreStatus: 'failed', error: 'The engine refused.', taste: null }),
    );
    expect(await jobs().statusOf(jobId)).toBe('failed');
  });

  it('a transient error asks for a retry until the last attempt, which fails the core', async () => {
    const { ctx, coreId, jobId } = await processingCore();
    failWith(new TasteGenerationError('provider timed out', true, 'The engine is unavailable.'));
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, false)).toBe('retry');
    expect((await s.m.coreRow(coreId))?.status).toBe('processing');
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, true)).toBe('done');
    expect((await s.cores.get(ctx, coreId)).error).toBe('The engine is unavailable.');
  });

  it('an unexpected error is retried too, and recorded with the generic message on the last attempt', async () => {
    const { ctx, coreId, jobId } = await processingCore();
    failWith(new Error('socket hang up at 10.0.0.7'));
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, false)).toBe('retry');
    expect(await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, true)).toBe('done');
    expect(await s.cores.get(ctx, coreId)).toEqual(
      expect.objectContaining({ coreStatus: 'failed', error: GENERATION_UNEXPECTED }),
    );
    expect(await jobs().statusOf(jobId)).toBe('failed');
  });
});
