import request from 'supertest';
import { createOrgWithKey, startTestApp, TestApp } from '../support/app';
import { launchBrowser } from '../support/browser';

const HSTS = 'max-age=15552000; includeSubDomains';

describe('security headers: helmet, HSTS, trust proxy (e2e)', () => {
  describe('served over http (PUBLIC_BASE_URL http)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(() => t.close());

    it('API responses carry helmet headers, without HSTS', async () => {
      const org = await createOrgWithKey(t.app);
      for (const res of [
        await request(t.app.getHttpServer()).get('/api/v1/org/me').set('Authorization', `Bearer ${org.key}`),
        await request(t.app.getHttpServer()).get('/api/v1/org/me'),
        await request(t.app.getHttpServer()).get('/health/live'),
      ]) {
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
        expect(res.headers['content-security-policy']).toContain("default-src 'self'");
        expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
        expect(res.headers['referrer-policy']).toBe('no-referrer');
        expect(res.headers['x-powered-by']).toBeUndefined();
        expect(res.headers['strict-transport-security']).toBeUndefined();
      }
    });

    it('the dashboard keeps its own strict CSP under helmet', async () => {
      const res = await request(t.app.getHttpServer()).get('/dashboard/sign-in').expect(200);
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'self'; img-src 'self' data: https: http:; style-src 'self'; script-src 'self'; " +
          "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
      );
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(res.headers['strict-transport-security']).toBeUndefined();
    });

    it('Swagger UI at /api/docs still renders under the CSP (Chromium)', async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        const violations: string[] = [];
        page.on('console', (m) => {
          if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
        });
        const res = await page.goto(`${t.baseUrl}/api/docs`);
        expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
        await page.getByText('/api/v1/org/cores/{id}').first().waitFor();
        expect(violations).toEqual([]);
      } finally {
        await browser.close();
      }
    });

    it('trusts X-Forwarded-Proto from loopback by default (Secure session cookie), not with TRUST_PROXY=false', async () => {
      const secureCookie = async (app: TestApp): Promise<boolean> => {
        const res = await request(app.app.getHttpServer())
          .get('/dashboard/sign-in')
          .set('X-Forwarded-Proto', 'https')
          .expect(200);
        const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
        expect(cookies.length).toBeGreaterThan(0);
        return cookies.every((c) => /;\s*Secure/i.test(c));
      };
      expect(await secureCookie(t)).toBe(true);
      const untrusting = await startTestApp({ TRUST_PROXY: 'false' });
      try {
        expect(await secureCookie(untrusting)).toBe(false);
      } finally {
        await untrusting.close();
      }
    });
  });

  describe('served over https (PUBLIC_BASE_URL https)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ PUBLIC_BASE_URL: 'https://taste.example.com' });
    });
    afterAll(() => t.close());

    it('adds HSTS to API and dashboard responses', async () => {
      const api = await request(t.app.getHttpServer()).get('/api/v1/org/me');
      expect(api.headers['strict-transport-security']).toBe(HSTS);
      const dashboard = await request(t.app.getHttpServer()).get('/dashboard/sign-in');
      expect(dashboard.headers['strict-transport-security']).toBe(HSTS);
    });
  });
});
