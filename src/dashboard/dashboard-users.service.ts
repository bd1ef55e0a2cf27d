import { createHash } from 'node:crypto';
import { BadRequestException, Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';
import { randomBytes } from 'node:crypto';
import { AuditService } from '../audit/audit.service';
import { OrgContext } from '../auth/org-context';
import { DASHBOARD_ROLES, DashboardRole, DashboardUserEntity } from './dashboard-user.entity';
import { DashboardUsersRepository } from './dashboard-users.repository';

const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;
export const MAX_EMAIL_LENGTH = 320;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** argon2id with the library's defaults (m=64 MiB, t=3, p=4). */
const HASH_OPTIONS = { type: argon2.argon2id } as const;

export interface DashboardUserCreated {
  id: string;
  email: string;
  orgId: string;
  role: DashboardRole;
  /** Present only when the password was generated: shown once, never stored. */
  password?: string;
}

export interface SignedInUser {
  id: string;
  email: string;
  role: DashboardRole;
  ctx: OrgContext;
  /** Changes whenever the password does (a fingerprint of its salted hash): sessions compare it. */
  passwordVersion: string;
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** Dashboard people: creation (CLI), password verification and the session's context. */
@Injectable()
export class DashboardUsersService {
  /** Verified against when the email is unknown, so both paths cost one argon2 verification. */
  private dummyHash?: Promise<string>;

  constructor(
    private readonly repo: DashboardUsersRepository,
    private readonly audit: AuditService,
  ) {}

  /** Creates a user in `ctx.orgId`, or resets the password (and role) of an existing one when `reset`. */
  async createUser(
    ctx: OrgContext,
    input: { email: string; role?: DashboardRole; password?: string; reset?: boolean },
  ): Promise<DashboardUserCreated> {
    const email = normaliseEmail(input.email);
    if (!EMAIL.test(email) || email.length > MAX_EMAIL_LENGTH)
      throw new BadRequestException('A valid email is required.');
    const role = input.role ?? 'member';
    if (!DASHBOARD_ROLES.includes(role)) throw new BadRequestException('Role must be owner or member.');
    const generated = input.password === undefined;
    const password = input.password ?? generatePassword();
    if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
      throw new BadRequestException(`The password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    const hash = await argon2.hash(password, HASH_OPTIONS);
    const existing = await this.repo.findByEmail(email);
    let user: DashboardUserEntity;
    if (existing) {
      if (!input.reset || existing.orgId !== ctx.orgId) {
        throw new BadRequestException(`A dashboard user with email ${email} already exists.`);
      }
      await this.repo.updatePassword(existing.id, hash, role);
      user = { ...existing, role };
    } else {
      user = await this.repo.insert(ctx.orgId, email, hash, role);
    }
    await this.audit.record(ctx, {
      action: existing ? 'dashboard_user.password_reset' : 'dashboard_user.created',
      targetType: 'dashboard_user',
      targetId: user.id,
      metadata: { email, role },
    });
    return { id: user.id, email, orgId: user.orgId, role, ...(generated ? { password } : {}) };
  }

  /** Email + password check; null for an unknown email or a wrong password (same cost either way). */
  async verifyPassword(emailInput: string, password: string): Promise<SignedInUser | null> {
    const email = normaliseEmail(emailInput);
    const user = email ? await this.repo.findByEmail(email) : null;
    const ok = await this.verify(user?.passwordHash, password.slice(0, MAX_PASSWORD_LENGTH));
    return user && ok ? this.toSignedIn(user) : null;
  }

  async noteSignIn(userId: string): Promise<void> {
    await this.repo.touchSignIn(userId);
  }

  /** The user behind a session, or null when the user (or organization) no longer exists. */
  async findSignedIn(userId: string): Promise<SignedInUser | null> {
    const user = await this.repo.findByIdWithOrg(userId);
    return user ? this.toSignedIn(user) : null;
  }

  private toSignedIn(user: DashboardUserEntity): SignedInUser {
    return {
      id: user.id,
      email: user.email,
      role: user.role,
      passwordVersion: createHash('sha256').update(user.passwordHash).digest('base64url').slice(0, 22),
      ctx: {
        orgId: user.orgId,
        orgName: user.organization?.name ?? '',
        actor: { type: 'user', id: user.id, label: user.email },
        apiKeyId: null,
      },
    };
  }

  private async verify(hash: string | undefined, password: string): Promise<boolean> {
    if (!hash) {
      this.dummyHash ??= argon2.hash(generatePassword(), HASH_OPTIONS);
      await argon2.verify(await this.dummyHash, password).catch(() => false);
      return false;
    }
    return argon2.verify(hash, password).catch(() => false);
  }
}
