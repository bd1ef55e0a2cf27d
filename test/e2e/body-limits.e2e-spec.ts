import { connect } from 'node:net';
import request from 'supertest';
import { createOrgWithKey, OrgWithKey, startTestApp, TestApp } from '../support/app';

/**
 * Sends a request head announcing `total` bytes, then writes the body as fast as the socket takes it
 * until the server answers (or closes). Returns the answer and how many body bytes were written.
 */
function uploadUntilAnswered(
  baseUrl: string,
  head: string,
  total: number,
): Promise<{ response: string; written: number }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let written = 0;
    let response = '';
    let answered = false;
    const finish = (): void => {
      if (answered) return;
      answered = true;
      socket.destroy();
      resolve({ response, written });
    };
    socket.on('data', (d) => {
      response += d.toString('latin1');
      if (response.includes('\r\n\r\n') && /"status":\d+/.test(response)) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    const pump = (): void => {
      while (!answered && written < total) {
        written += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(`${head}Content-Length: ${total}\r\nHost: ${hostname}\r\n\r\n`);
      pump();
    });
  });
}

describe('body handling before authentication, per-route limits and nesting depth (e2e)', () => {
  let t: TestApp;
  let org: OrgWithKey;
  const http = () => request(t.app.getHttpServer());
  const auth = () => ({ Authorization: `Bearer ${org.key}` });
  const MB = 1024 * 1024;

  beforeAll(async () => {
    t = await startTestApp();
    org = await createOrgWithKey(t.app);
  });
  afterAll(() => t.close());

  it('answers an anonymous 200 MB JSON upload to /me with 401 before the upload is read', async () => {
    const total = 200 * MB;
    const { response, written } = await uploadUntilAnswered(
      t.baseUrl,
      'POST /api/v1/org/me HTTP/1.1\r\nContent-Type: application/json\r\n',
      total,
    );
    expect(response).toMatch(/^HTTP\/1\.1 401/);
    expect(response).toMatch(/connection: close/i);
    const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as { status: number };
    expect(body).toEqual(expect.objectContaining({ status: 401, message: expect.any(String) }));
    // The server closed the connection instead of reading 200 MB (socket buffers hold a few MB at most).
    expect(written).toBeLessThan(total / 4);
  });

  it('answers an anonymous upload to /mcp and to a create with a wrong key 401, whatever the type', async () => {
    for (const [path, type, key] of [
      ['/mcp', 'text/plain', ''],
      ['/api/v1/org/cores', 'application/json', 'Authorization: Bearer tp_live_wrong\r\n'],
      ['/api/v1/org/cores', 'application/x-www-form-urlencoded', ''],
    ]) {
      const { response, written } = await uploadUntilAnswered(
        t.baseUrl,
        `POST ${path} HTTP/1.1\r\nContent-Type: ${type}\r\n${key}`,
        200 * MB,
      );
      expect(response).toMatch(/^HTTP\/1\.1 401/);
      expect(written).toBeLessThan(50 * MB);
    }
  });

  it('keeps /health/live answering while anonymous uploads are refused', async () => {
    const uploads = [1, 2, 3].map(() =>
      uploadUntilAnswered(
        t.baseUrl,
        'POST /api/v1/org/me HTTP/1.1\r\nContent-Type: application/json\r\n',
        100 * MB,
      ),
    );
    await http().get('/health/live').expect(200, { status: 'ok' });
    for (const u of await Promise.all(uploads)) expect(u.response).toMatch(/^HTTP\/1\.1 401/);
  });

  const overOneMb = JSON.stringify({ query: 'x'.repeat(MB + 10) });

  it('refuses an authenticated JSON body over 1 MB on /me and on product search with 413 and the error body', async () => {
    for (const res of [
      await http().get('/api/v1/org/me').set(auth()).set('Content-Type', 'application/json').send(overOneMb),
      await http()
        .post('/api/v1/org/cores/00000000-0000-4000-8000-000000000000/products')
        .set(auth())
        .set('Content-Type', 'application/json')
        .send(overOneMb),
    ]) {
      expect(res.status).toBe(413);
      expect(res.body).toEqual(expect.objectContaining({ status: 413, message: expect.any(String) }));
    }
  });

  it('accepts a large body on create and on an image-replacing PATCH, and 413s a large rename', async () => {
    const image = `data:image/png;base64,${'A'.repeat(2 * MB)}`;
    const create = await http()
      .post('/api/v1/org/cores')
      .set(auth())
      .send({ name: 'big', images: [image] });
    expect(create.status).toBe(400); // parsed and validated, not refused for its size
    const id = '00000000-0000-4000-8000-000000000000';
    const patch = await http()
      .patch(`/api/v1/org/cores/${id}`)
      .set(auth())
      .send({ images: [image] });
    expect(patch.status).toBe(404); // parsed; the core does not exist
    const rename = await http()
      .patch(`/api/v1/org/cores/${id}`)
      .set(auth())
      .send({ name: 'n', padding: 'x'.repeat(2 * MB) });
    expect(rename.status).toBe(413);
    expect(rename.body).toEqual(expect.objectContaining({ status: 413, message: expect.any(String) }));
  });

  it('refuses a deeply nested body with 400 and the error body, without blocking the server', async () => {
    const deep = '['.repeat(500_000) + ']'.repeat(500_000);
    const res = await http()
      .post('/api/v1/org/cores')
      .set(auth())
      .set('Content-Type', 'application/json')
      .send(deep);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(
      expect.objectContaining({ status: 400, message: expect.stringMatching(/nested/) }),
    );
    const objects = `{"name":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`;
    const res2 = await http()
      .post('/api/v1/org/cores/00000000-0000-4000-8000-000000000000/products')
      .set(auth())
      .set('Content-Type', 'application/json')
      .send(objects);
    expect(res2.body.message).toMatch(/nested/);
    // 64 levels are parsed (and then validated like any other body).
    const ok = `{"coreId":${'['.repeat(63)}${']'.repeat(63)}}`;
    const res3 = await http()
      .post('/api/v1/org/cores/00000000-0000-4000-8000-000000000000/products')
      .set(auth())
      .set('Content-Type', 'application/json')
      .send(ok);
    expect([400, 404]).toContain(res3.status);
    expect(res3.body.message).not.toMatch(/nested/);
    await http().get('/health/live').expect(200);
  });

  // Unread, such a body was no body at all: a search with its filters in a form answered 200 with
  // unfiltered products, a create 400 "name must be ...".
  it('415 for a body that is not JSON (a form, text, no Content-Type), on every API route with a body', async () => {
    const send = async (method: string, path: string, type: string | null, body: string) => {
      const res = await fetch(`${t.baseUrl}${path}`, {
        method,
        headers: { ...auth(), ...(type === null ? {} : { 'Content-Type': type }) },
        body: type === null ? new Blob([body]) : body,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    for (const [method, path] of [
      ['POST', '/api/v1/org/cores'],
      ['PATCH', '/api/v1/org/cores/00000000-0000-4000-8000-000000000000'],
      ['POST', '/api/v1/org/cores/00000000-0000-4000-8000-000000000000/products'],
      ['POST', '/api/v1/org/webhooks'],
    ]) {
      for (const type of ['application/x-www-form-urlencoded', 'text/plain', null]) {
        const res = await send(method, path, type, '{"query":"coat","maxPrice":50}');
        expect({ method, path, type, status: res.status }).toEqual({ method, path, type, status: 415 });
        expect(res.body).toEqual(
          expect.objectContaining({
            status: 415,
            code: 'unsupported_media_type',
            message: 'Request body must be JSON: send it with Content-Type: application/json.',
          }),
        );
      }
    }
    // No body at all needs no type; a JSON body with a charset parameter is JSON.
    const empty = await fetch(`${t.baseUrl}/api/v1/org/me`, { headers: auth() });
    expect(empty.status).toBe(200);
    const json = await send('POST', '/api/v1/org/webhooks', 'application/json; charset=utf-8', '{"url":"x"}');
    expect(json.status).toBe(400);
  });

  it("reads an image route's JSON in any UTF encoding, 415s another charset, and answers malformed JSON 400 malformed_json", async () => {
    const body = { name: 'charset', images: [`data:image/png;base64,${'A'.repeat(200_000)}`], extra: 'é' };
    const post = async (bytes: Buffer, type: string) => {
      const res = await fetch(`${t.baseUrl}/api/v1/org/cores`, {
        method: 'POST',
        headers: { ...auth(), 'Content-Type': type },
        body: bytes,
      });
      return { status: res.status, body: (await res.json()) as { message: string } };
    };
    // Parsed (the unknown field `extra` is named by validation), whatever the UTF encoding.
    for (const [bytes, type] of [
      [Buffer.from(JSON.stringify(body)), 'application/json'],
      [Buffer.from(JSON.stringify(body), 'utf16le'), 'application/json; charset=utf-16le'],
    ] as const) {
      const res = await post(bytes, type);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/extra/);
    }
    const latin1 = await post(
      Buffer.from(JSON.stringify(body), 'latin1'),
      'application/json; charset=iso-8859-1',
    );
    expect(latin1.status).toBe(415);
    expect(latin1.body).toEqual(
      expect.objectContaining({ status: 415, message: 'unsupported charset "ISO-8859-1"' }),
    );
    const cut = await post(Buffer.from(JSON.stringify(body).slice(0, 150_000)), 'application/json');
    expect(cut.status).toBe(400);
    expect(cut.body).toEqual(expect.objectContaining({ status: 400, code: 'malformed_json' }));
    // The same answer from the 1 MB parser of the other routes. A bare JSON value (valid JSON, no
    // object) says so, from either parser: it read "Malformed JSON" too.
    const search = '/api/v1/org/cores/00000000-0000-4000-8000-000000000000/products';
    for (const [path, text, message] of [
      [search, '{"coreId": ', 'Malformed JSON in request body.'],
      [search, 'null', 'Request body must be a JSON object or array.'],
      [search, ' 5 ', 'Request body must be a JSON object or array.'],
      ['/api/v1/org/cores', '"just a string"', 'Request body must be a JSON object or array.'],
      ['/api/v1/org/cores', 'nul', 'Malformed JSON in request body.'],
    ]) {
      const res = await http().post(path).set(auth()).set('Content-Type', 'application/json').send(text);
      expect({ text, status: res.status }).toEqual({ text, status: 400 });
      expect(res.body).toEqual(expect.objectContaining({ status: 400, code: 'malformed_json', message }));
    }
  });
});
