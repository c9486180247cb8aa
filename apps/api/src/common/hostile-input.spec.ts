import { findDeepNesting, findUnstorableText, isBoundedTimestamp, MAX_JSON_DEPTH } from './hostile-input';

describe('findDeepNesting', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('passes bodies up to the limit and names the top-level field of a deeper one', () => {
    expect(findDeepNesting(Buffer.from(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`))).toBeNull();
    expect(findDeepNesting(Buffer.from(`{"a":1,"b":${nested(MAX_JSON_DEPTH)}}`))).toBe('b');
    expect(findDeepNesting(Buffer.from(nested(MAX_JSON_DEPTH + 1)))).toBe('body');
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(findDeepNesting(Buffer.from(JSON.stringify({ a: '['.repeat(1000), b: `\\"${'{'.repeat(1000)}` })))).toBeNull();
  });

  it('handles invalid JSON without throwing (the parser refuses it next)', () => {
    expect(findDeepNesting(Buffer.from(']]]]{"a":'))).toBeNull();
    expect(findDeepNesting(Buffer.from('{"a" "unterminated'))).toBeNull();
  });
});

describe('findUnstorableText', () => {
  it('names the first field whose key or string holds a NUL or a lone surrogate', () => {
    expect(findUnstorableText({ a: 'fine', b: ['ok', 'x\u0000y'] }, '')).toBe('b.1');
    expect(findUnstorableText({ nested: { v: '\ud800' } }, '')).toBe('nested.v');
    expect(findUnstorableText({ ['k\udc00']: 1 }, '')).toBe('k\udc00');
    expect(findUnstorableText({ emoji: '😀 paired surrogates are fine' }, '')).toBeNull();
  });
});

describe('isBoundedTimestamp', () => {
  it.each(['0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '9999-12-31T23:59:59.999+00:00', '2026-11-25T10:00:00+03:00'])('accepts %s', (value) =>
    expect(isBoundedTimestamp(value)).toBe(true),
  );
  it.each(['9999-12-31T23:59:59-14:00', '0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '+275760-09-13T00:00:00Z', '2026-11-25', 'yesterday'])('refuses %s', (value) =>
    expect(isBoundedTimestamp(value)).toBe(false),
  );
});
