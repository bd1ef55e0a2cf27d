import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { PROVIDER_FAILED_MESSAGE } from '../../src/taste/taste.types';
import { api } from '../support/api';
import { createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { postColourCore, waitForCore } from '../support/cores';

/**
 * A failing taste engine: the openai provider against an OpenAI-compatible server on loopback that
 * answers with real Chat Completions error bodies. Failed generation is not an HTTP error: the core
 * and job become `failed` with an `error` a user can act on.
 */
function fakeProvider(
  status: number,
  message = `status ${status}`,
): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    hits += 1;
    req.resume();
    req.on('end', () => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${port}/v1`, hits: () => hits });
    }),
  );
}

/** The app with the openai provider pointed at a fake server. */
function startWithProvider(url: string, apiKey: string): Promise<TestApp> {
  return startTestApp({ TASTE_PROVIDER: 'openai', OPENAI_BASE_URL: url, OPENAI_API_KEY: apiKey });
}

describe('generation failures (e2e)', () => {
  it('a non-transient provider error (401) fails the core and job at once; the tenant sees a generic error, the log the details', async () => {
    const provider = await fakeProvider(401, 'Incorrect API key provided for project proj_internal_42');
    const warnings: string[] = [];
    const spy = jest.spyOn(Logger.prototype, 'warn').mockImplementation(function (
      this: Logger,
      message: unknown,
    ) {
      warnings.push(String(message));
    });
    const t = await startWithProvider(provider.url, 'sk-test-secret');
    try {
      const org = await createOrgWithKey(t.app);
      const created = await postColourCore(t, org, 'Doomed', '#c19a6b');
      expect(created.status).toBe(202);
      const core = await waitForCore(t, org, created.body.coreId as string);
      expect(core.coreStatus).toBe('failed');
      expect(core.error).toBe(PROVIDER_FAILED_MESSAGE);
      // What the tenant sees carries none of the provider's details. Ids, image URLs and timestamps
      // are left out (the images' captions are kept): they are random or clock values, and one id
      // (`...-b401-...`) failed CI once.
      const shown = Object.entries(core).filter(
        ([k]) => !['id', 'images', 'createdAt', 'updatedAt'].includes(k),
      );
      const captions = (core.images as { caption: string | null }[]).map((i) => i.caption);
      expect(captions).toHaveLength(1);
      expect(JSON.stringify([shown, captions])).not.toMatch(/401|OPENAI_API_KEY|proj_internal_42/);
      expect(shown.map(([k]) => k)).toEqual(expect.arrayContaining(['error', 'taste', 'coreStatus']));
      expect(
        warnings.some(
          (w) =>
            w.includes(created.body.jobId as string) &&
            w.includes('vision provider returned 401: check OPENAI_API_KEY'),
        ),
      ).toBe(true);
      expect(core.taste).toBeNull();
      const job = await api(t, org.key).get(`/api/v1/org/jobs/${created.body.jobId}`);
      expect(job.body).toEqual(expect.objectContaining({ jobStatus: 'failed', error: core.error }));
      expect(JSON.stringify(core)).not.toContain('sk-test-secret');
      expect(provider.hits()).toBe(1); // no retry of a 401
    } finally {
      spy.mockRestore();
      await t.close();
      provider.server.close();
    }
  });

  it('a transient provider error (503) is retried with backoff, then fails the core', async () => {
    const provider = await fakeProvider(503);
    const t = await startWithProvider(provider.url, 'k');
    try {
      const org = await createOrgWithKey(t.app);
      const created = await postColourCore(t, org, 'Flaky', '#1c2541');
      const core = await waitForCore(t, org, created.body.coreId as string, 60000);
      expect(core.coreStatus).toBe('failed');
      expect(core.error).toBe(PROVIDER_FAILED_MESSAGE);
      // 3 job attempts x 3 provider attempts each.
      expect(provider.hits()).toBe(9);
    } finally {
      await t.close();
      provider.server.close();
    }
  });
});
