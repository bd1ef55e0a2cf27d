import { Command, CommandRunner } from 'nest-commander';
import { ApiKeysService } from '../auth/api-keys.service';
import { DashboardUsersService } from '../dashboard/dashboard-users.service';
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
    private readonly keys: ApiKeysService,
    private readonly users: DashboardUsersService,
  ) {
    super();
  }

  async run(): Promise<void> {
    const org =
      (await this.keys.findOrganizationByName(DEMO_ORG_NAME)) ??
      (await this.keys.createOrganization(DEMO_ORG_NAME));
    const ctx = await this.keys.cliContext(org.id);
    const key = await this.keys.createKey(ctx, `demo ${new Date().toISOString().slice(0, 19)}`);
    const user = await this.users.createUser(ctx, { email: DEMO_USER_EMAIL, role: 'owner', reset: true });
    printJson({
      organization: { id: org.id, name: org.name },
      apiKey: { id: key.id, key: key.key, prefix: key.prefix },
      dashboard: { url: '/dashboard', email: user.email, password: user.password },
    });
  }
}
