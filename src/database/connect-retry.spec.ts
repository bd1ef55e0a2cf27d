import { isRetryableConnectError } from './connect-retry';

describe('isRetryableConnectError', () => {
  it('gives up when PostgreSQL refused the database, the user or the password', () => {
    for (const code of ['3D000', '28P01', '28000']) expect(isRetryableConnectError({ code })).toBe(false);
  });

  it('retries an unreachable or starting server, and anything it cannot classify', () => {
    for (const err of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('getaddrinfo ENOTFOUND postgres'), { code: 'ENOTFOUND' }),
      { code: '57P03' }, // the database system is starting up
      { code: '53300' }, // too many connections
      new Error('Connection terminated due to connection timeout'),
      undefined,
    ])
      expect(isRetryableConnectError(err)).toBe(true);
  });
});
