import request from 'supertest';
import { TestApp } from './app';
import { assertHeadersDocumented, assertMatchesContract } from './contract';

export interface ApiResponse {
  status: number;
  body: Record<string, unknown> & { message?: string };
  headers: Record<string, string>;
}

/**
 * A tiny client for the organization API that checks every response body, and the API's own headers,
 * against the contract (openapi/taste-profile.v1.yaml) for its operation and status, so a forgotten
 * field or an undocumented header fails a test.
 */
export function api(t: TestApp, key: string | null) {
  const call = async (
    method: 'get' | 'post' | 'patch' | 'delete',
    path: string,
    body?: unknown,
  ): Promise<ApiResponse> => {
    let req = request(t.app.getHttpServer())[method](path);
    if (key) req = req.set('Authorization', `Bearer ${key}`);
    const res = body === undefined ? await req : await req.send(body as object);
    if (path.startsWith('/api/v1/org/')) {
      assertMatchesContract(method, path, res.status, res.body);
      assertHeadersDocumented(method, path, res.status, res.headers);
    }
    return { status: res.status, body: res.body, headers: res.headers as Record<string, string> };
  };
  return {
    get: (path: string) => call('get', path),
    post: (path: string, body?: unknown) => call('post', path, body),
    patch: (path: string, body?: unknown) => call('patch', path, body),
    delete: (path: string) => call('delete', path),
  };
}
