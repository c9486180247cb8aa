import type { Request } from 'express';
import type { AppConfig } from '@app/config';
import { BY_INTEGER, BY_UUID } from '@app/vocabulary';
import { Paginator } from './paginator';
import { CursorCodec, InvalidCursorError } from './paging';

const key = Buffer.alloc(32, 7);
const config = { cursorKey: key, publicBaseUrl: 'https://api.example.com' } as unknown as AppConfig;
const request = { path: '/api/public/v1/shipments/', query: {} } as unknown as Request;
const cursorFor = (position: unknown[]): string => new CursorCodec(key).encode('/api/public/v1/shipments?', position);

describe('Paginator: the cursor carries a typed keyset position', () => {
  const paginator = new Paginator(config);

  it('hands the service the typed position of a genuine cursor', () => {
    expect(paginator.start(request, { cursor: cursorFor([17]) }, BY_INTEGER).after).toBe(17);
    expect(paginator.start(request, {}, BY_INTEGER)).toMatchObject({ after: null, limit: 50 });
  });

  it('refuses a correctly signed cursor whose position is not of the list\'s keyset (400 invalid_cursor)', () => {
    expect(() => paginator.start(request, { cursor: cursorFor(['17']) }, BY_INTEGER)).toThrow(InvalidCursorError);
    expect(() => paginator.start(request, { cursor: cursorFor([17]) }, BY_UUID)).toThrow(InvalidCursorError);
  });

  it('encodes the next page from the typed position of the last visible row', () => {
    const page = paginator.start(request, { limit: 1 }, BY_INTEGER);
    const result = paginator.finish(request, page, [{ id: 9 }, { id: 8 }], (row) => row.id, (row) => row);
    const next = new URL(result.links.next as string);
    expect(paginator.start(request, { cursor: next.searchParams.get('cursor') as string }, BY_INTEGER).after).toBe(9);
  });
});
