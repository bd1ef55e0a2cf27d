import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { OrganizationEntity } from './organization.entity';

@Injectable()
export class OrganizationsRepository {
  constructor(@InjectRepository(OrganizationEntity) private readonly orgs: Repository<OrganizationEntity>) {}

  insert(name: string): Promise<OrganizationEntity> {
    return this.orgs.save(this.orgs.create({ name }));
  }

  findById(id: string): Promise<OrganizationEntity | null> {
    return this.orgs.findOne({ where: { id } });
  }

  /** The oldest organization of that name (names are not unique). */
  findOldestByName(name: string): Promise<OrganizationEntity | null> {
    return this.orgs.findOne({ where: { name }, order: { createdAt: 'ASC' } });
  }
}
