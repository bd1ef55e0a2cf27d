import { Command, CommandRunner, Option } from 'nest-commander';
import { ApiKeysService } from '../auth/api-keys.service';
import { printJson, requireOption } from '../cli/cli-output';
import { DASHBOARD_ROLES, DashboardRole } from './dashboard-user.entity';
import { DashboardUsersService } from './dashboard-users.service';

interface UserCreateOpts {
  org?: string;
  email?: string;
  role?: string;
}

/** Reads a piped password (first line of stdin); null when stdin is a terminal or empty. */
async function readPipedPassword(stdin: NodeJS.ReadStream = process.stdin): Promise<string | null> {
  if (stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  const first = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
  return first ? first : null;
}

@Command({
  name: 'user:create',
  description:
    'Create a dashboard user: prints { id, email, orgId, role, password? }. The password is read from ' +
    'stdin when piped, otherwise generated and printed once.',
})
export class UserCreateCommand extends CommandRunner {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly users: DashboardUsersService,
  ) {
    super();
  }

  async run(_args: string[], opts: UserCreateOpts): Promise<void> {
    const ctx = await this.keys.cliContext(requireOption(opts.org, '--org'));
    const email = requireOption(opts.email, '--email');
    const role = (opts.role ?? 'member') as DashboardRole;
    if (!DASHBOARD_ROLES.includes(role)) throw new Error('--role must be owner or member');
    const password = await readPipedPassword();
    const created = await this.users.createUser(ctx, { email, role, password: password ?? undefined });
    printJson(created);
  }

  @Option({ flags: '--org <id>', description: 'Organization id' })
  parseOrg(v: string): string {
    return v;
  }

  @Option({ flags: '--email <email>', description: 'Sign-in email (stored lowercased)' })
  parseEmail(v: string): string {
    return v;
  }

  @Option({ flags: '--role <role>', description: 'owner or member (default member)' })
  parseRole(v: string): string {
    return v;
  }
}
