import { Command, CommandRunner, Option } from 'nest-commander';
import { MAX_KEY_NAME_LENGTH } from '../auth/api-key.entity';
import { ApiKeysService } from '../auth/api-keys.service';
import { AuditService } from '../audit/audit.service';
import { OrganizationsService } from '../organizations/organizations.service';
import { printJson, requireOption } from './cli-output';

interface NameOpts {
  name?: string;
}

@Command({ name: 'org:create', description: 'Create an organization: prints { id, name }' })
export class OrgCreateCommand extends CommandRunner {
  constructor(private readonly orgs: OrganizationsService) {
    super();
  }

  async run(_args: string[], opts: NameOpts): Promise<void> {
    const name = requireOption(opts.name, '--name');
    if (name.length > 255) throw new Error('--name must be at most 255 characters');
    const org = await this.orgs.create(name);
    printJson({ id: org.id, name: org.name });
  }

  @Option({ flags: '--name <name>', description: 'Organization name' })
  parseName(v: string): string {
    return v;
  }
}

interface KeyCreateOpts {
  org?: string;
  name?: string;
}

@Command({
  name: 'key:create',
  description: 'Create an API key: prints { id, key, prefix } (the key only once)',
})
export class KeyCreateCommand extends CommandRunner {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run(_args: string[], opts: KeyCreateOpts): Promise<void> {
    const ctx = await this.keys.cliContext(requireOption(opts.org, '--org'));
    const name = (opts.name ?? 'default').trim().slice(0, MAX_KEY_NAME_LENGTH) || 'default';
    const key = await this.keys.createKey(ctx, name);
    printJson({ id: key.id, key: key.key, prefix: key.prefix, name: key.name, orgId: ctx.orgId });
  }

  @Option({ flags: '--org <id>', description: 'Organization id' })
  parseOrg(v: string): string {
    return v;
  }

  @Option({ flags: '--name <name>', description: 'Key name (default "default")' })
  parseName(v: string): string {
    return v;
  }
}

interface IdOpts {
  id?: string;
}

@Command({ name: 'key:revoke', description: 'Revoke an API key: effective on the next request' })
export class KeyRevokeCommand extends CommandRunner {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run(_args: string[], opts: IdOpts): Promise<void> {
    const found = await this.keys.findKeyById(requireOption(opts.id, '--id'));
    const ctx = await this.keys.cliContext(found.orgId);
    const key = await this.keys.revokeKey(ctx, found.id);
    printJson({ id: key.id, prefix: key.prefix, revokedAt: key.revokedAt?.toISOString() ?? null });
  }

  @Option({ flags: '--id <id>', description: 'API key id' })
  parseId(v: string): string {
    return v;
  }
}

interface OrgOpts {
  org?: string;
}

@Command({ name: 'key:list', description: "List an organization's API keys (never the keys themselves)" })
export class KeyListCommand extends CommandRunner {
  constructor(
    private readonly orgs: OrganizationsService,
    private readonly keys: ApiKeysService,
  ) {
    super();
  }

  async run(_args: string[], opts: OrgOpts): Promise<void> {
    const org = await this.orgs.get(requireOption(opts.org, '--org'));
    const keys = await this.keys.listKeys(org.id);
    printJson(
      keys.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        createdAt: k.createdAt.toISOString(),
        lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
        revokedAt: k.revokedAt?.toISOString() ?? null,
      })),
    );
  }

  @Option({ flags: '--org <id>', description: 'Organization id' })
  parseOrg(v: string): string {
    return v;
  }
}

interface AuditOpts extends OrgOpts {
  limit?: string;
}

@Command({ name: 'audit:list', description: "Print an organization's audit log, newest first" })
export class AuditListCommand extends CommandRunner {
  constructor(
    private readonly orgs: OrganizationsService,
    private readonly audit: AuditService,
  ) {
    super();
  }

  async run(_args: string[], opts: AuditOpts): Promise<void> {
    const org = await this.orgs.get(requireOption(opts.org, '--org'));
    const limit = opts.limit === undefined ? 100 : Number(opts.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new Error('--limit must be a positive integer');
    const { events } = await this.audit.list(org.id, { limit });
    printJson(
      events.map((e) => ({
        id: e.id,
        createdAt: e.createdAt.toISOString(),
        actor: { type: e.actorType, id: e.actorId, label: e.actorLabel },
        action: e.action,
        target: { type: e.targetType, id: e.targetId },
        metadata: e.metadata,
      })),
    );
  }

  @Option({ flags: '--org <id>', description: 'Organization id' })
  parseOrg(v: string): string {
    return v;
  }

  @Option({ flags: '--limit <n>', description: 'At most this many events (default 100)' })
  parseLimit(v: string): string {
    return v;
  }
}

export const ORG_COMMANDS = [
  OrgCreateCommand,
  KeyCreateCommand,
  KeyRevokeCommand,
  KeyListCommand,
  AuditListCommand,
];
