import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { NO_OAUTH_MESSAGE } from '../../src/mcp/mcp-no-oauth.controller';
import { startTestApp, TestApp } from '../support/app';

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => 'connected',
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );

/** What an MCP client shows for a wrong or missing key, with and without OAuth support. */
describe('MCP with a wrong or missing API key (e2e)', () => {
  let t: TestApp;
  let url: URL;
  beforeAll(async () => {
    t = await startTestApp();
    url = new URL('/mcp', t.baseUrl);
  });
  afterAll(() => t.close());

  const headers = (key?: string): { requestInit: RequestInit } => ({
    requestInit: { headers: key ? { Authorization: `Bearer ${key}` } : {} },
  });

  it('a client with a header shows "Invalid API key." (v2 client and v1 SDK) or how to send one', async () => {
    const v2 = await errorOf(
      new Client({ name: 'c', version: '1' }).connect(
        new StreamableHTTPClientTransport(url, headers('tpk_wrong')),
      ),
    );
    expect(v2).toContain('Invalid API key.');
    const v1 = await errorOf(
      new ClientV1({ name: 'c', version: '1' }).connect(new TransportV1(url, headers('tpk_wrong'))),
    );
    expect(v1).toContain('Invalid API key.');
    const missing = await errorOf(
      new Client({ name: 'c', version: '1' }).connect(new StreamableHTTPClientTransport(url, headers())),
    );
    expect(missing).toContain('Missing API key');
  });

  it('an OAuth-capable client starts no authorization flow and its error says to use an API key', async () => {
    const steps: string[] = [];
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return 'http://127.0.0.1:9/callback';
      },
      get clientMetadata() {
        return { client_name: 'oauth-capable', redirect_uris: ['http://127.0.0.1:9/callback'] };
      },
      clientInformation: () => undefined,
      saveClientInformation: () => void steps.push('registered'),
      tokens: () => undefined,
      saveTokens: () => void steps.push('tokens'),
      redirectToAuthorization: () => void steps.push('redirected to authorize'),
      saveCodeVerifier: () => void steps.push('code verifier'),
      codeVerifier: () => 'unused',
    };
    const transport = new StreamableHTTPClientTransport(url, {
      authProvider: provider,
      ...headers('tpk_wrong'),
    });
    const message = await errorOf(new Client({ name: 'c', version: '1' }).connect(transport));
    expect(steps).toEqual([]);
    expect(message).toContain('does not use OAuth');
    expect(message).toContain('Invalid API key.');
  });

  it('the 401 advertises no OAuth metadata, and every OAuth discovery path is a 404 that says so', async () => {
    const http = () => request(t.app.getHttpServer());
    const res = await http()
      .post('/mcp')
      .set('Authorization', 'Bearer tpk_wrong')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(401);
    expect(res.body.message).toBe('Invalid API key.');
    expect(res.headers['www-authenticate']).toBe('Bearer');
    for (const path of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server/mcp',
    ]) {
      const doc = await http().get(path).expect(404);
      expect(doc.body).toEqual({
        message: NO_OAUTH_MESSAGE,
        status: 404,
        code: 'not_found',
        requestId: expect.any(String),
      });
    }
    const register = await http().post('/register').send({ client_name: 'x' }).expect(404);
    expect(register.body.message).toBe(NO_OAUTH_MESSAGE);
  });
});
