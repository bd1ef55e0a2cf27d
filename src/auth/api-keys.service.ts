import { Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type Redis from 'ioredis';
import { AuditService } from '../audit/audit.service';
import { AllConfig } from '../config/configuration';
import { isUuid } from '../common/validation';
import { OrganizationsService } from '../organizations/organizations.service';
import { REDIS } from '../redis/redis.module';
import { ApiKeyCache, KEY_REVOKED_CHANNEL } from './api-key-cache';
import { ApiKeyEntity } from './api-key.entity';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  KEY_LENGTH,
  sameDigest,
} from './api-key.format';
import { ApiKeysRepository } from './api-keys.repository';
import { AuthErrorCode, AuthException } from './auth.exception';
import { OrgContext } from './org-context';

export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  key: string;
  createdAt: Date;
}

/** How often `last_used_at` is written per key: at most once a minute, off the request path. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly pepper: string;
  private readonly lastUsedWrites = new Map<string, number>();
  /** Served only while the HTTP app's ApiKeyRevocationListener keeps it subscribed (off in the CLI). */
  readonly cache: ApiKeyCache;

  constructor(
    private readonly repo: ApiKeysRepository,
    private readonly audit: AuditService,
    private readonly orgs: OrganizationsService,
    config: ConfigService<AllConfig, true>,
    @Inject(REDIS) private readonly redis: Redis,
  ) {
    const auth = config.get('auth', { infer: true });
    this.pepper = auth.pepper;
    this.cache = new ApiKeyCache(auth.keyCacheMs);
  }

  /**
   * Resolves a bearer key to its organization. Malformed keys (shape or checksum) are refused
   * before any database query. A resolved key is kept in memory for API_KEY_CACHE_MS while this
   * process is subscribed to revocations, which every process announces through Redis: a revoked key
   * is refused in every process once the announcement reaches it, milliseconds after the revocation
   * (docs/decisions/0026-lean-request-path.md).
   */
  async authenticate(rawKey: string): Promise<OrgContext> {
    if (rawKey.length !== KEY_LENGTH) throw new AuthException(AuthErrorCode.KeyInvalid, 'Invalid API key.');
    const keyHash = hashApiKey(rawKey, this.pepper);
    // A hit is the hash of a stored key, so the key is well formed: the checksum is checked on a miss.
    const cached = this.cache.get(keyHash);
    if (cached) {
      this.noteUsed(cached.apiKeyId as string);
      return cached;
    }
    if (!isWellFormedApiKey(rawKey)) throw new AuthException(AuthErrorCode.KeyInvalid, 'Invalid API key.');

    const since = this.cache.begin();
    const row = await this.repo.findByHashWithOrg(keyHash);
    if (!row || !sameDigest(row.keyHash, keyHash))
      throw new AuthException(AuthErrorCode.KeyInvalid, 'Invalid API key.');
    if (row.revokedAt) throw new AuthException(AuthErrorCode.KeyRevoked, 'API key has been revoked.');

    const ctx: OrgContext = {
      orgId: row.orgId,
      orgName: row.organization.name,
      actor: { type: 'api_key', id: row.id, label: `${row.name} (${row.prefix}…)` },
      apiKeyId: row.id,
      apiKey: { id: row.id, name: row.name, prefix: row.prefix, createdAt: row.createdAt },
    };
    this.cache.store(keyHash, ctx, since);
    this.noteUsed(row.id);
    return ctx;
  }

  /** Fire-and-forget, at most once a minute per key and process: keeps writes off the hot path. */
  private noteUsed(keyId: string): void {
    const now = Date.now();
    const last = this.lastUsedWrites.get(keyId) ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWrites.set(keyId, now);
    this.repo.touchLastUsed(keyId).catch((err: unknown) => {
      this.logger.warn(`could not record last use of key ${keyId}: ${String(err)}`);
    });
  }

  async getKeyForOrg(orgId: string, id: string): Promise<ApiKeyEntity> {
    const key = isUuid(id) ? await this.repo.findByIdForOrg(orgId, id) : null;
    if (!key) throw new NotFoundException('API key not found.');
    return key;
  }

  async createKey(ctx: OrgContext, name: string): Promise<CreatedApiKey> {
    const key = generateApiKey();
    const row = await this.repo.insert(ctx.orgId, name, displayPrefix(key), hashApiKey(key, this.pepper));
    await this.audit.record(ctx, {
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: row.id,
      metadata: { name, prefix: row.prefix },
    });
    return { id: row.id, name: row.name, prefix: row.prefix, key, createdAt: row.createdAt };
  }

  /**
   * Revokes a key of the caller's organization; 404 for another organization's key. The revocation is
   * announced to every process (their key caches drop it at once), also when the key was already
   * revoked, so repeating a revocation whose announcement failed (Redis down: the error is thrown)
   * announces it again.
   */
  async revokeKey(ctx: OrgContext, id: string): Promise<ApiKeyEntity> {
    const key = await this.getKeyForOrg(ctx.orgId, id);
    const revokedAt = await this.repo.revoke(ctx.orgId, key.id);
    this.cache.evictKey(key.id);
    if (revokedAt) {
      key.revokedAt = revokedAt;
      await this.audit.record(ctx, {
        action: 'api_key.revoked',
        targetType: 'api_key',
        targetId: key.id,
        metadata: { name: key.name, prefix: key.prefix },
      });
    }
    await this.redis.publish(KEY_REVOKED_CHANNEL, key.id);
    return key;
  }

  listKeys(orgId: string): Promise<ApiKeyEntity[]> {
    return this.repo.listForOrg(orgId);
  }

  /** The CLI acts on behalf of an organization it was told about; its audit actor is "cli". */
  async cliContext(orgId: string): Promise<OrgContext> {
    const org = await this.orgs.get(orgId);
    return {
      orgId: org.id,
      orgName: org.name,
      actor: { type: 'cli', id: null, label: 'admin CLI' },
      apiKeyId: null,
    };
  }

  async findKeyById(id: string): Promise<ApiKeyEntity> {
    const key = isUuid(id) ? await this.repo.findById(id) : null;
    if (!key) throw new NotFoundException(`API key ${id} not found.`);
    return key;
  }
}
