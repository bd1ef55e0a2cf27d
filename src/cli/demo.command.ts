import { Command, CommandRunner } from 'nest-commander';
import { ApiKeysService } from '../auth/api-keys.service';
import { printJson } from './cli-output';

export const DEMO_ORG_NAME = 'Demo Organization';

/**
 * First-start helper for the README's run command: makes sure the demo organization exists and
 * prints a fresh API key for it (keys are stored only as hashes, so a new one is issued each time).
 */
@Command({
  name: 'demo:bootstrap',
  description: 'Create the demo organization if missing and print a new key',
})
export class DemoBootstrapCommand extends CommandRunner {
  constructor(private readonly keys: ApiKeysService) {
    super();
  }

  async run(): Promise<void> {
    const org =
      (await this.keys.findOrganizationByName(DEMO_ORG_NAME)) ??
      (await this.keys.createOrganization(DEMO_ORG_NAME));
    const ctx = await this.keys.cliContext(org.id);
    const key = await this.keys.createKey(ctx, `demo ${new Date().toISOString().slice(0, 19)}`);
    printJson({
      organization: { id: org.id, name: org.name },
      apiKey: { id: key.id, key: key.key, prefix: key.prefix },
    });
  }
}
