import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import type { OrganizationEntity } from '../organizations/organization.entity';
import { ApiKeyEntity } from './api-key.entity';

export type ApiKeyWithOrg = ApiKeyEntity & { organization: OrganizationEntity };

@Injectable()
export class ApiKeysRepository {
  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  /** Unique-index lookup by hash; revoked keys are returned so the caller can tell them apart. */
  async findByHashWithOrg(keyHash: string): Promise<ApiKeyWithOrg | null> {
    // One query (findOne with a relation would add a DISTINCT pre-query on every request).
    const row = await this.keys
      .createQueryBuilder('k')
      .innerJoinAndSelect('k.organization', 'o')
      .where('k.key_hash = :keyHash', { keyHash })
      .getOne();
    return row && row.organization ? (row as ApiKeyWithOrg) : null;
  }

  insert(orgId: string, name: string, prefix: string, keyHash: string): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create({ orgId, name, prefix, keyHash }));
  }

  listForOrg(orgId: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({ where: { orgId }, order: { createdAt: 'DESC' } });
  }

  findByIdForOrg(orgId: string, id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { id, orgId } });
  }

  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: { id } });
  }

  /** Sets revoked_at once; returns it, or null when the organization's key was already revoked or absent. */
  async revoke(orgId: string, id: string): Promise<Date | null> {
    const res = await this.keys
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where({ id, orgId, revokedAt: IsNull() })
      .returning(['revokedAt'])
      .execute();
    const [row] = res.raw as { revoked_at: Date }[];
    return row?.revoked_at ?? null;
  }

  async touchLastUsed(id: string): Promise<void> {
    await this.keys.update({ id }, { lastUsedAt: () => 'now()' });
  }
}
