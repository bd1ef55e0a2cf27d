import { assertMatchesContract, contractPaths } from '../support/contract';

function validCore(): Record<string, unknown> {
  return {
    status: 200,
    id: 'core_abc123',
    name: 'Autumn capsule',
    coreStatus: 'ready',
    taste: 'Relaxed minimalist tailoring in warm neutrals.',
    styleAttributes: ['minimalist'],
    tags: ['outerwear'],
    images: [{ imageURL: 'https://cdn.example.com/i/0f9e8d7c.jpg', caption: null }],
    error: null,
    createdAt: '2025-01-15T09:30:00.000Z',
  };
}

describe('assertMatchesContract', () => {
  it('lists every contract operation with full paths and documented statuses', () => {
    const paths = contractPaths();
    expect(paths).toHaveLength(13);
    const getCore = paths.find((p) => p.operationId === 'getCore');
    expect(getCore).toMatchObject({
      method: 'GET',
      template: '/cores/{id}',
      fullPath: '/api/v1/org/cores/{id}',
    });
    expect(getCore?.statuses).toEqual(expect.arrayContaining(['200', '401', '404', '429']));
  });

  it('accepts a valid CoreResponseDto body (query string ignored)', () => {
    expect(() => assertMatchesContract('GET', '/api/v1/org/cores/abc123', 200, validCore())).not.toThrow();
    expect(() =>
      assertMatchesContract('get', '/api/v1/org/cores/abc123?x=1', 200, validCore()),
    ).not.toThrow();
  });

  it('rejects a CoreResponseDto body without coreStatus', () => {
    const { coreStatus: _omit, ...body } = validCore();
    expect(() => assertMatchesContract('GET', '/api/v1/org/cores/abc123', 200, body)).toThrow(
      /must have required property 'coreStatus'/,
    );
  });

  it('reports all errors: wrong enum, wrong nullability, bad format', () => {
    const body = { ...validCore(), coreStatus: 'done', name: null, createdAt: 'yesterday' };
    let message = '';
    try {
      assertMatchesContract('GET', '/api/v1/org/cores/abc123', 200, body);
    } catch (error) {
      message = error instanceof Error ? error.message : String(error);
    }
    expect(message).toContain('/coreStatus must be equal to one of the allowed values');
    expect(message).toContain('/name must be string');
    expect(message).toContain('/createdAt must match format "date-time"');
  });

  it('validates error bodies through shared component responses', () => {
    expect(() =>
      assertMatchesContract('GET', '/api/v1/org/cores/abc123', 404, {
        message: 'Core not found.',
        status: 404,
      }),
    ).not.toThrow();
    expect(() => assertMatchesContract('POST', '/api/v1/org/cores', 429, { message: 'slow down' })).toThrow(
      /must have required property 'status'/,
    );
  });

  it('validates other operations (nested paths, job nullability, products maxItems)', () => {
    expect(() =>
      assertMatchesContract('GET', '/api/v1/org/jobs/job_1', 200, {
        status: 200,
        id: 'job_1',
        coreId: 'core_1',
        jobStatus: 'processing',
        error: null,
        createdAt: '2025-01-15T09:30:00.000Z',
        startedAt: null,
        finishedAt: null,
      }),
    ).not.toThrow();
    const product = {
      id: 'p1',
      title: 'Coat',
      designer: 'Brand',
      price: 129,
      mediaUrl: 'https://cdn.example.com/p1.jpg',
      mediaUrlAlt: null,
      url: 'https://shop.example.com/p1',
    };
    const search = (count: number): unknown => ({
      status: 200,
      coreName: 'Autumn',
      query: '',
      products: Array.from({ length: count }, () => product),
    });
    expect(() =>
      assertMatchesContract('POST', '/api/v1/org/cores/c1/products', 200, search(10)),
    ).not.toThrow();
    expect(() => assertMatchesContract('POST', '/api/v1/org/cores/c1/products', 200, search(11))).toThrow(
      /must NOT have more than 10 items/,
    );
  });

  it('fails on an undocumented status or an unknown operation', () => {
    expect(() =>
      assertMatchesContract('GET', '/api/v1/org/cores/abc123', 500, { message: 'x', status: 500 }),
    ).toThrow(/status 500 is not documented for getCore/);
    expect(() => assertMatchesContract('GET', '/api/v1/org/me', 404, { message: 'x', status: 404 })).toThrow(
      /not documented/,
    );
    expect(() => assertMatchesContract('PUT', '/api/v1/org/cores/abc123', 200, {})).toThrow(/no operation/);
    expect(() => assertMatchesContract('GET', '/cores/abc123', 200, validCore())).toThrow(/no operation/);
  });
});
