import { Injectable, NotFoundException } from '@nestjs/common';
import { isUuid } from '../common/validation';
import { OrganizationEntity } from './organization.entity';
import { OrganizationsRepository } from './organizations.repository';

/** Organizations: created and looked up by the admin CLI, the demo bootstrap and the tests. */
@Injectable()
export class OrganizationsService {
  constructor(private readonly repo: OrganizationsRepository) {}

  create(name: string): Promise<OrganizationEntity> {
    return this.repo.insert(name);
  }

  /** 404 for an unknown (or malformed) id. */
  async get(id: string): Promise<OrganizationEntity> {
    const org = isUuid(id) ? await this.repo.findById(id) : null;
    if (!org) throw new NotFoundException(`Organization ${id} not found.`);
    return org;
  }

  findByName(name: string): Promise<OrganizationEntity | null> {
    return this.repo.findOldestByName(name);
  }
}
