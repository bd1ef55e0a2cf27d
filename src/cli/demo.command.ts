import { Command, CommandRunner } from 'nest-commander';
import { ApiKeysService } from '../auth/api-keys.service';
import { DashboardUsersService } from '../dashboard/dashboard-users.service';
import { OrganizationsService } from '../organizations/organizations.service';
import { printJson } from './cli-output';

export const DEMO_ORG_NAME = 'Demo Organization';
export const DEMO_USER_EMAIL = 'demo@example.com';

/**
 * First-start helper for the README's run command: makes sure the demo organization exists and
 * prints a fresh API key for it (keys are stored only as hashes, so a new one is issued each time),
 * plus a dashboard sign-in whose password is generated (or reset) and printed once.
 */
@Command({
  name: 'demo:bootstrap',
  description: 'Create the demo organization if missing and print a new key',
})
export class DemoBootstrapCommand extends CommandRunner {
  constructor(
    private readonly orgs: OrganizationsService,
    private readonly keys: ApiKeysService,
    private readonly users: DashboardUsersService,
  ) {
    super();
  }

  async run(): Promise<void> {
    printJson(await bootstrapDemo(this.orgs, this.keys, this.users));
  }
}

export interface DemoCredentials {
  organization: { id: string; name: string };
  apiKey: { id: string; key: string; prefix: string };
  dashboard: { url: string; email: string; password: string };
}

/**
 * The demo organization (created if missing), a new API key and the demo sign-in with a new
 * password. Used by `demo:bootstrap` and by `node dist/main.js --demo` (`npm run demo`), which prints
 * them after the start-up banner.
 */
export async function bootstrapDemo(
  orgs: OrganizationsService,
  keys: ApiKeysService,
  users: DashboardUsersService,
): Promise<DemoCredentials> {
  const org = (await orgs.findByName(DEMO_ORG_NAME)) ?? (await orgs.create(DEMO_ORG_NAME));
  const ctx = await keys.cliContext(org.id);
  const key = await keys.createKey(ctx, `demo ${new Date().toISOString().slice(0, 19)}`);
  const user = await users.createUser(ctx, { email: DEMO_USER_EMAIL, role: 'owner', reset: true });
  return {
    organization: { id: org.id, name: org.name },
    apiKey: { id: key.id, key: key.key, prefix: key.prefix },
    dashboard: { url: '/dashboard', email: user.email, password: user.password as string },
  };
}
