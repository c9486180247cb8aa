import type { Request } from 'express';
import type { AppConfig } from '@app/config';
import { BY_INTEGER } from '@app/vocabulary';
import { TwoWayPaginator } from './paginator';
import { CursorCodec, InvalidCursorError } from './paging';

const key = Buffer.alloc(32, 9);
const config = { cursorKey: key, publicBaseUrl: 'https://api.example.com' } as unknown as AppConfig;
const PATH = '/panel/webhook-events/';
const requestFor = (query: Record<string, unknown> = {}): Request => ({ path: PATH, query }) as unknown as Request;
/** The query of a relative link, as the next request sees it. */
const follow = (link: string): Request => requestFor(Object.fromEntries(new URL(link, 'http://panel.test').searchParams));

/** A newest-first list of the ids 100 … 1; "older" reads descending, "newer" ascending, `limit + 1` rows. */
function read(after: number | null, backward: boolean, limit: number): Array<{ id: number }> {
  const ids = Array.from({ length: 100 }, (_, i) => 100 - i);
  const rows = backward ? ids.filter((id) => after === null || id > after).reverse() : ids.filter((id) => after === null || id < after);
  return rows.slice(0, limit + 1).map((id) => ({ id }));
}

describe('TwoWayPaginator: Older/Newer links over a keyset', () => {
  const paginator = new TwoWayPaginator(config);
  const page = (request: Request) => {
    const start = paginator.start(request, BY_INTEGER, 30);
    return paginator.finish(request, start, read(start.after, start.backward, start.limit), (row) => row.id);
  };

  it('walks to the end with Older links and back with Newer links, the same pages, keeping the filters', () => {
    const forward: number[][] = [];
    let current = page(requestFor({ type: 'alarm.created' }));
    expect(current.previous).toBeNull();
    forward.push(current.rows.map((r) => r.id));
    while (current.next) {
      expect(current.next).toMatch(/^\/panel\/webhook-events\/\?type=alarm\.created&cursor=/);
      current = page(follow(current.next));
      forward.push(current.rows.map((r) => r.id));
    }
    expect(forward.flat()).toEqual(Array.from({ length: 100 }, (_, i) => 100 - i));
    expect(forward.map((p) => p.length)).toEqual([30, 30, 30, 10]);
    const backward: number[][] = [];
    while (current.previous) {
      current = page(follow(current.previous));
      backward.push(current.rows.map((r) => r.id));
    }
    expect(backward).toEqual([forward[2], forward[1], forward[0]]);
  });

  it('refuses a cursor of another list, a tampered one, one without a direction, or a repeated parameter', () => {
    const next = page(requestFor({ type: 'alarm.created' })).next as string;
    const cursor = new URL(next, 'http://panel.test').searchParams.get('cursor') as string;
    expect(() => paginator.start(requestFor({ cursor }), BY_INTEGER, 30)).toThrow(InvalidCursorError);
    expect(() => paginator.start(requestFor({ type: 'alarm.created', cursor: `${cursor}x` }), BY_INTEGER, 30)).toThrow(InvalidCursorError);
    expect(() => paginator.start(requestFor({ cursor: [cursor, cursor] }), BY_INTEGER, 30)).toThrow(InvalidCursorError);
    const undirected = new CursorCodec(key).encode(`${PATH.replace(/\/+$/, '')}?`, [17]);
    expect(() => paginator.start(requestFor({ cursor: undirected }), BY_INTEGER, 30)).toThrow(InvalidCursorError);
    expect(paginator.start(requestFor({ cursor: '' }), BY_INTEGER, 30)).toMatchObject({ after: null, backward: false });
  });

  it('goes on from the frontier of a scan that stopped before the page was full', () => {
    const request = requestFor({ outcome: 'failed' });
    const start = paginator.start(request, BY_INTEGER, 30);
    const result = paginator.finish(request, start, [{ id: 90 }, { id: 70 }], (row) => row.id, 40);
    expect(result.rows).toEqual([{ id: 90 }, { id: 70 }]);
    expect(paginator.start(follow(result.next as string), BY_INTEGER, 30)).toMatchObject({ after: 40, backward: false });
    // An empty page of a stopped scan still goes on, and back to where it started.
    const later = paginator.start(follow(result.next as string), BY_INTEGER, 30);
    const empty = paginator.finish(follow(result.next as string), later, [], (row: { id: number }) => row.id, 10);
    expect(paginator.start(follow(empty.next as string), BY_INTEGER, 30)).toMatchObject({ after: 10, backward: false });
    expect(paginator.start(follow(empty.previous as string), BY_INTEGER, 30)).toMatchObject({ after: 10, backward: true });
  });
});
