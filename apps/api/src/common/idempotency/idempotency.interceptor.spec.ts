import { isExecutedRefusal, requestFingerprint } from './idempotency.interceptor';

describe('requestFingerprint', () => {
  it('is the same for the same request whatever the key order or trailing slash', () => {
    expect(requestFingerprint('POST', '/api/public/v1/carriers/', { name: 'A', mode: 'road', contact: { a: 1, b: 2 } })).toBe(
      requestFingerprint('POST', '/api/public/v1/carriers', { contact: { b: 2, a: 1 }, mode: 'road', name: 'A' }),
    );
  });

  it('differs when the method, path or any value differs', () => {
    const base = requestFingerprint('POST', '/x/', { a: [1, 2] });
    expect(requestFingerprint('PUT', '/x/', { a: [1, 2] })).not.toBe(base);
    expect(requestFingerprint('POST', '/y/', { a: [1, 2] })).not.toBe(base);
    expect(requestFingerprint('POST', '/x/', { a: [2, 1] })).not.toBe(base);
    expect(requestFingerprint('POST', '/x/', { a: [1, 2], b: null })).not.toBe(base);
  });
});

describe('isExecutedRefusal (which refusals are stored under the key)', () => {
  it.each([409, 410, 422])('stores %i: the operation ran and refused', (status) => expect(isExecutedRefusal(status)).toBe(true));
  it.each([400, 401, 403, 404, 405, 413, 415, 429, 500, 503])('does not store %i: refused before executing, or a failure to retry', (status) =>
    expect(isExecutedRefusal(status)).toBe(false),
  );
});
