import type { DemoCredentials } from './cli/demo.command';

/**
 * The lines printed once the server listens (plain text on stdout, beside the JSON logs): where the
 * service is and where to go next. With `npm run demo` the demo key and sign-in come last, so they
 * stay on screen.
 */
export function startupBanner(baseUrl: string, demo?: DemoCredentials): string {
  const lines = [
    '',
    `Taste Profile Service listening on ${baseUrl}`,
    `  Dashboard     ${baseUrl}/dashboard`,
    `  API docs      ${baseUrl}/api/docs   (OpenAPI JSON: ${baseUrl}/api/docs-json)`,
    `  MCP endpoint  ${baseUrl}/mcp   (POST, Authorization: Bearer <API key>)`,
    `  Health        ${baseUrl}/health/ready`,
  ];
  if (demo) {
    lines.push(
      '',
      `Demo organization "${demo.organization.name}" (${demo.organization.id})`,
      `  API key (shown once)   ${demo.apiKey.key}`,
      `  Dashboard sign-in      ${demo.dashboard.email} / ${demo.dashboard.password}`,
      `  Try it                 export TASTE_API_KEY=${demo.apiKey.key}   then: bash examples/walkthrough.sh`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}
