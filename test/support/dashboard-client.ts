import { request as httpRequest } from 'node:http';

export interface DashboardResponse {
  status: number;
  location: string | undefined;
  setCookies: string[];
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A cookie-keeping HTTP client for the server-rendered dashboard (forms, redirects not followed).
 * `localAddress` lets a test come from another loopback address (127.0.0.2, ...), i.e. another client.
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    private readonly localAddress = '127.0.0.1',
  ) {}

  get(path: string): Promise<DashboardResponse> {
    return this.send('GET', path);
  }

  post(path: string, form: Record<string, string | string[]>): Promise<DashboardResponse> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
    return this.send('POST', path, body.toString());
  }

  /** The CSRF token of the form on `path`. */
  async formToken(path: string): Promise<string> {
    const page = await this.get(path);
    const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
    if (!match) throw new Error(`no form token on ${path} (${page.status})`);
    return match[1];
  }

  async signIn(email: string, password: string): Promise<DashboardResponse> {
    const _csrf = await this.formToken('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password, _csrf });
  }

  private send(method: string, path: string, body?: string): Promise<DashboardResponse> {
    const url = new URL(path, this.baseUrl);
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    if (body !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method,
          headers,
          localAddress: this.localAddress,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const setCookies = res.headers['set-cookie'] ?? [];
            for (const c of setCookies) {
              const [pair, ...attrs] = c.split(';');
              const eq = pair.indexOf('=');
              const name = pair.slice(0, eq).trim();
              const value = pair.slice(eq + 1).trim();
              const expired = attrs.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
              if (!value || expired) this.cookies.delete(name);
              else this.cookies.set(name, value);
            }
            resolve({
              status: res.statusCode ?? 0,
              location: res.headers.location,
              setCookies,
              text: Buffer.concat(chunks).toString('utf8'),
              headers: res.headers,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}
