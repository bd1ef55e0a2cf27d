import Redis from 'ioredis';
import { loadConfig } from '../config/configuration';
import { DashboardSignInService } from './dashboard-sign-in.service';
import type { DashboardUsersService, SignedInUser } from './dashboard-users.service';
import { LoginThrottleService, TooManySignInAttemptsException } from './login-throttle.service';

/** Sign-in throttling against the real Redis; the password check is a stand-in as slow as argon2. */
describe('sign-in throttling', () => {
  let redis: Redis;
  let signIn: DashboardSignInService;
  const user = { id: 'u1', email: 'a@example.com', role: 'owner' } as SignedInUser;
  const users = {
    verifyPassword: async (_email: string, password: string) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return password === 'right' ? user : null;
    },
    noteSignIn: async () => undefined,
  } as unknown as DashboardUsersService;

  beforeAll(() => {
    redis = new Redis(loadConfig().redis.url); // the test run's Redis database
    signIn = new DashboardSignInService(users, new LoginThrottleService(redis));
  });
  afterAll(() => redis.quit());

  const attempt = (email: string, password: string, ip: string) =>
    signIn.signIn(email, password, ip).then(
      () => 200,
      (err: { getStatus?: () => number }) => err.getStatus?.() ?? 500,
    );

  it('lets exactly 5 of 12 parallel wrong passwords from one address through to the password check', async () => {
    const email = `parallel-${process.pid}-${Date.now()}@example.com`;
    const ip = `10.0.${process.pid % 250}.1`;
    const statuses = await Promise.all(Array.from({ length: 12 }, () => attempt(email, 'wrong', ip)));
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    // Blocked at that address: even the right password is refused before it is checked.
    const blocked = await signIn.signIn(email, 'right', ip).catch((err: unknown) => err);
    expect(blocked).toBeInstanceOf(TooManySignInAttemptsException);
    expect((blocked as TooManySignInAttemptsException).retryAfterSeconds).toBeGreaterThan(60);
    // Nobody can lock the user out from elsewhere: another address signs in.
    expect(await attempt(email, 'right', `10.2.${process.pid % 250}.1`)).toBe(200);
  });

  it('caps failures per address across emails', async () => {
    const ip = `10.3.${process.pid % 250}.${Date.now() % 250}`;
    for (let i = 0; i < 30; i += 1) {
      expect(await attempt(`cap-${i}-${process.pid}-${Date.now()}@example.com`, 'wrong', ip)).toBe(401);
    }
    expect(await attempt(`cap-last-${process.pid}@example.com`, 'right', ip)).toBe(429);
  });

  it('forgets the failures of an email after a successful sign-in', async () => {
    const email = `reset-${process.pid}-${Date.now()}@example.com`;
    const ip = `10.1.${process.pid % 250}.1`;
    for (let i = 0; i < 4; i += 1) expect(await attempt(email, 'wrong', ip)).toBe(401);
    expect(await attempt(email, 'right', ip)).toBe(200);
    for (let i = 0; i < 5; i += 1) expect(await attempt(email, 'wrong', ip)).toBe(401);
    expect(await attempt(email, 'wrong', ip)).toBe(429);
  });
});
