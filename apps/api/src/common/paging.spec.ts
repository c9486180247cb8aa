import { CursorCodec, InvalidCursorError } from './paging';

describe('CursorCodec', () => {
  const codec = new CursorCodec(Buffer.alloc(32, 7));

  it('round-trips a keyset position bound to its list', () => {
    const cursor = codec.encode('/api/public/v1/alarms?resolved=false', ['2026-01-01T00:00:00.000Z', 'abc']);
    expect(codec.decode('/api/public/v1/alarms?resolved=false', cursor)).toEqual(['2026-01-01T00:00:00.000Z', 'abc']);
  });

  it('refuses a cursor used with other filters, signed with another key, or altered', () => {
    const cursor = codec.encode('/a?x=1', [1]);
    expect(() => codec.decode('/a?x=2', cursor)).toThrow(InvalidCursorError);
    expect(() => new CursorCodec(Buffer.alloc(32, 8)).decode('/a?x=1', cursor)).toThrow(InvalidCursorError);
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ s: '/a?x=1', p: [999] })).toString('base64url');
    expect(() => codec.decode('/a?x=1', `${forged}.${signature}`)).toThrow(InvalidCursorError);
    for (const garbage of ['', 'x', `${payload}`, `${payload}.`, `${payload}.${signature}.x`, '%%%.%%%']) {
      expect(() => codec.decode('/a?x=1', garbage)).toThrow(InvalidCursorError);
    }
  });
});
