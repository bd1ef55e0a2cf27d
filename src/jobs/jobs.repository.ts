import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, LessThan, Repository } from 'typeorm';
import { JobEntity } from './job.entity';

@Injectable()
export class JobsRepository {
  constructor(@InjectRepository(JobEntity) private readonly jobs: Repository<JobEntity>) {}

  private repo(manager?: EntityManager): Repository<JobEntity> {
    return manager ? manager.getRepository(JobEntity) : this.jobs;
  }

  insertProcessing(orgId: string, coreId: string, manager?: EntityManager): Promise<JobEntity> {
    const repo = this.repo(manager);
    return repo.save(repo.create({ orgId, coreId, status: 'processing', error: null, attempts: 0 }));
  }

  findByIdForOrg(orgId: string, id: string): Promise<JobEntity | null> {
    return this.jobs.findOne({ where: { id, orgId } });
  }

  /** Generation internals only (worker, reconciler): the job id comes from our own queue, not a tenant. */
  findById(id: string): Promise<JobEntity | null> {
    return this.jobs.findOne({ where: { id } });
  }

  listProcessingBefore(cutoff: Date, limit: number): Promise<JobEntity[]> {
    return this.jobs.find({
      where: { status: 'processing', createdAt: LessThan(cutoff) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
  }

  listForCore(orgId: string, coreId: string): Promise<JobEntity[]> {
    return this.jobs.find({ where: { orgId, coreId }, order: { createdAt: 'DESC' }, take: 50 });
  }

  async markStarted(id: string): Promise<void> {
    await this.jobs
      .createQueryBuilder()
      .update(JobEntity)
      .set({ startedAt: () => 'COALESCE(started_at, now())', attempts: () => 'attempts + 1' })
      .where('id = :id AND status = :status', { id, status: 'processing' })
      .execute();
  }

  /** Terminal transition; only from `processing`, so a late duplicate delivery cannot flip it. */
  async finish(
    id: string,
    status: 'ready' | 'failed',
    error: string | null,
    manager?: EntityManager,
  ): Promise<boolean> {
    const res = await this.repo(manager)
      .createQueryBuilder()
      .update(JobEntity)
      .set({ status, error, finishedAt: () => 'now()' })
      .where('id = :id AND status = :processing', { id, processing: 'processing' })
      .execute();
    return (res.affected ?? 0) > 0;
  }
}
