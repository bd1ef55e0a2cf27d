import { BadRequestException, NotFoundException } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { OrgContext } from '../auth/org-context';
import { ImageStore } from '../storage';
import { colourPng } from '../../test/support/cores';
import { filesUnder } from '../../test/support/cores-suite';
import { useCoresModule } from '../../test/support/cores-module';

/** CoresService.rename and replaceImages on the real PostgreSQL, Redis and file store (no HTTP). */
describe('CoresService (real database)', () => {
  const s = useCoresModule();

  /** A ready core: created, then its generation job run here (this module has no worker). */
  async function readyCore(ctx: OrgContext, name: string): Promise<{ coreId: string; jobId: string }> {
    const { coreId, jobId } = await s.cores.create(ctx, { name, images: [s.red] });
    await s.generation.run({ orgId: ctx.orgId, coreId, jobId }, true);
    return { coreId, jobId };
  }

  describe('rename', () => {
    it('renames a ready core: no new job, the profile and images stay, the new name is searchable', async () => {
      const ctx = await s.m.newOrg();
      const { coreId, jobId } = await readyCore(ctx, 'Before');
      const before = await s.cores.get(ctx, coreId);
      expect(before.coreStatus).toBe('ready');
      const renamed = await s.cores.rename(ctx, coreId, 'Harbour linen');
      expect(renamed).toEqual({ ...before, name: 'Harbour linen' });
      expect(await s.m.coreRow(coreId)).toEqual(
        expect.objectContaining({ currentJobId: jobId, status: 'ready' }),
      );
      const found = await s.cores.list(ctx, { query: 'harbour' });
      expect(found.cores.map((c) => c.id)).toEqual([coreId]);
    });

    it('400 without a name, before the core is looked up', async () => {
      const ctx = await s.m.newOrg();
      await expect(s.cores.rename(ctx, 'not-a-uuid', undefined)).rejects.toThrow(
        new BadRequestException('Nothing to update: send name, imageUrls or images.'),
      );
    });

    it("404 for a malformed id, an unknown id and another organization's core, which keeps its name", async () => {
      const owner = await s.m.newOrg();
      const stranger = await s.m.newOrg();
      const { coreId } = await readyCore(owner, 'Mine');
      for (const [ctx, id] of [
        [owner, 'not-a-uuid'],
        [owner, '00000000-0000-4000-8000-000000000000'],
        [stranger, coreId],
      ] as const) {
        await expect(s.cores.rename(ctx, id, 'Taken')).rejects.toThrow(NotFoundException);
      }
      expect((await s.cores.get(owner, coreId)).name).toBe('Mine');
    });
  });

  describe('replaceImages', () => {
    it('swaps the images in with a new job, purges the old objects and records the counts', async () => {
      const ctx = await s.m.newOrg();
      const { coreId, jobId } = await readyCore(ctx, 'Old look');
      const oldKeys = await s.m.imageKeys(coreId);
      const res = await s.cores.replaceImages(ctx, coreId, {
        images: [await colourPng('#1c2541'), await colourPng('#1c2541')],
        name: 'New look',
      });
      expect(res).toEqual(
        expect.objectContaining({
          id: coreId,
          name: 'New look',
          coreStatus: 'processing',
          taste: null,
          jobId: expect.any(String),
          imagesPurged: 1,
          imagesFailed: 0,
        }),
      );
      expect(res.jobId).not.toBe(jobId);
      expect(res.images).toHaveLength(2);
      expect((await s.m.coreRow(coreId))?.currentJobId).toBe(res.jobId);
      const store = s.m.moduleRef.get(ImageStore);
      for (const key of oldKeys) expect(await store.exists(key)).toBe(false);
      for (const key of await s.m.imageKeys(coreId)) expect(await store.exists(key)).toBe(true);
      const { events } = await s.m.moduleRef
        .get(AuditService)
        .list(ctx.orgId, { action: 'core.images_replaced' });
      expect(events.find((e) => e.targetId === coreId)?.metadata).toEqual({
        jobId: res.jobId,
        images: 2,
        imagesPurged: 1,
        imagesFailed: 0,
      });
    });

    it('keeps the name when none is sent', async () => {
      const ctx = await s.m.newOrg();
      const { coreId } = await readyCore(ctx, 'Same name');
      expect((await s.cores.replaceImages(ctx, coreId, { images: [await colourPng('#1c2541')] })).name).toBe(
        'Same name',
      );
    });

    it("404 for an unknown or another organization's core before any image is stored", async () => {
      const owner = await s.m.newOrg();
      const stranger = await s.m.newOrg();
      const { coreId } = await readyCore(owner, 'Guarded');
      const keys = await s.m.imageKeys(coreId);
      const files = filesUnder(s.m.config.storage.dir).length;
      for (const [ctx, id] of [
        [owner, 'not-a-uuid'],
        [owner, '00000000-0000-4000-8000-000000000000'],
        [stranger, coreId],
      ] as const) {
        await expect(
          s.cores.replaceImages(ctx, id, { images: [await colourPng('#1c2541')] }),
        ).rejects.toThrow(NotFoundException);
      }
      expect(filesUnder(s.m.config.storage.dir).length).toBe(files);
      expect(await s.m.imageKeys(coreId)).toEqual(keys);
      expect((await s.cores.get(owner, coreId)).coreStatus).toBe('ready');
    });
  });
});
