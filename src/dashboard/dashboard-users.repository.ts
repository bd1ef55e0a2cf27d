import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { DashboardRole, DashboardUserEntity } from './dashboard-user.entity';

/** The only place that touches the `dashboard_users` table. */
@Injectable()
export class DashboardUsersRepository {
  constructor(
    @InjectRepository(DashboardUserEntity) private readonly users: Repository<DashboardUserEntity>,
  ) {}

  findByEmail(email: string): Promise<DashboardUserEntity | null> {
    return this.users.findOne({ where: { email }, relations: { organization: true } });
  }

  findByIdWithOrg(id: string): Promise<DashboardUserEntity | null> {
    return this.users.findOne({ where: { id }, relations: { organization: true } });
  }

  insert(
    orgId: string,
    email: string,
    passwordHash: string,
    role: DashboardRole,
  ): Promise<DashboardUserEntity> {
    return this.users.save(this.users.create({ orgId, email, passwordHash, role }));
  }

  async updatePassword(id: string, passwordHash: string, role: DashboardRole): Promise<void> {
    await this.users.update({ id }, { passwordHash, role });
  }

  async touchSignIn(id: string): Promise<void> {
    await this.users.update({ id }, { lastSignInAt: () => 'now()' });
  }
}
