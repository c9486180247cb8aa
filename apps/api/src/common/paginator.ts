import { Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { AppConfig } from '@app/config';
import { APP_CONFIG } from '../config/config.module';
import type { Keyset, KeysetPage } from '@app/vocabulary';
import { CursorCodec, DEFAULT_PAGE_SIZE, InvalidCursorError, type Page, type PageQueryDto } from './paging';

/** A page of a list: its typed keyset position (null for the first page) and how it is encoded. */
export interface PageRequest<K> extends KeysetPage<K> {
  keyset: Keyset<K>;
}

/** The list's identity for cursor binding: path plus every filter except the paging parameters. */
function listScope(request: Request): string {
  const params = new URLSearchParams();
  const entries = Object.entries(request.query)
    .filter(([name]) => name !== 'cursor' && name !== 'limit')
    .sort(([a], [b]) => a.localeCompare(b));
  for (const [name, value] of entries) params.append(name, String(value));
  return `${request.path.replace(/\/+$/, '')}?${params.toString()}`;
}

/** Keyset paging for every list: reads `limit`/`cursor`, builds `{data, links.next}` with absolute URLs. */
@Injectable()
export class Paginator {
  private readonly codec: CursorCodec;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.codec = new CursorCodec(config.cursorKey);
  }

  /** The page the request asks for; a cursor that is not a position of this keyset is a 400 invalid_cursor. */
  start<K>(request: Request, query: PageQueryDto, keyset: Keyset<K>, defaultLimit = DEFAULT_PAGE_SIZE): PageRequest<K> {
    let after: K | null = null;
    if (query.cursor) {
      after = keyset.decode(this.codec.decode(listScope(request), query.cursor));
      if (after === null) throw new InvalidCursorError();
    }
    return { limit: query.limit ?? defaultLimit, after, keyset };
  }

  /** `rows` holds up to `limit + 1` records; the extra one only proves there is a next page. */
  finish<K, Row, Out>(request: Request, page: PageRequest<K>, rows: Row[], position: (row: Row) => K, present: (row: Row) => Out): Page<Out> {
    const hasMore = rows.length > page.limit;
    const visible = hasMore ? rows.slice(0, page.limit) : rows;
    const next = hasMore ? this.nextLink(request, page, position(visible[visible.length - 1])) : null;
    return { data: visible.map(present), links: { next } };
  }

  /** The absolute `links.next` of a page whose last record is at `last` (for pages built without `finish`). */
  nextLink<K>(request: Request, page: PageRequest<K>, last: K): string {
    const url = new URL(`${this.config.publicBaseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query)) {
      if (name !== 'cursor' && typeof value === 'string') url.searchParams.set(name, value);
    }
    url.searchParams.set('cursor', this.codec.encode(listScope(request), page.keyset.encode(last)));
    return url.toString();
  }
}

/**
 * A page of a list read in both directions (the panel's "Older"/"Newer" links): `backward` reads
 * towards the start of the list from the cursor's position (the repository returns those rows
 * in reverse order, `finishBothWays` puts them back).
 */
export interface TwoWayPageRequest<K> extends PageRequest<K> {
  backward: boolean;
}

/** The rows to show, in list order, and the relative links to the pages around them. */
export interface TwoWayPage<Row> {
  rows: Row[];
  /** Further along the list (older, in a newest-first list); null at its end. */
  next: string | null;
  /** Back towards its start (newer); null on the first page. */
  previous: string | null;
}

const FORWARD = 'f';
const BACKWARD = 'b';

/** A link to the same list (path and filters) at another cursor. */
function relativeLink(request: Request, cursor: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query)) {
    if (name !== 'cursor' && typeof value === 'string') params.set(name, value);
  }
  params.set('cursor', cursor);
  return `${request.path}?${params.toString()}`;
}

/**
 * Keyset paging of the web panel's lists: the same signed, list-bound cursor as the API's
 * (`cursor`), carrying the direction as well, and links relative to the page (no script needed).
 */
@Injectable()
export class TwoWayPaginator {
  private readonly codec: CursorCodec;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.codec = new CursorCodec(config.cursorKey);
  }

  /** The page the request asks for; an invalid, tampered or other list's cursor is an InvalidCursorError. */
  start<K>(request: Request, keyset: Keyset<K>, limit: number): TwoWayPageRequest<K> {
    const cursor = request.query.cursor;
    if (cursor === undefined || cursor === '') return { limit, after: null, keyset, backward: false };
    if (typeof cursor !== 'string' || cursor.length > 2048) throw new InvalidCursorError();
    const [direction, ...position] = this.codec.decode(listScope(request), cursor);
    const after = direction === FORWARD || direction === BACKWARD ? keyset.decode(position) : null;
    if (after === null) throw new InvalidCursorError();
    return { limit, after, keyset, backward: direction === BACKWARD };
  }

  /**
   * `rows` holds up to `limit + 1` records read in the page's direction; the extra one proves there
   * is more that way. `frontier`: the read stopped early (a bounded scan) at this position, so
   * there may be more that way after it although the page is not full.
   */
  finish<K, Row>(request: Request, page: TwoWayPageRequest<K>, rows: Row[], position: (row: Row) => K, frontier: K | null = null): TwoWayPage<Row> {
    const more = rows.length > page.limit;
    const read = more ? rows.slice(0, page.limit) : rows;
    const visible = page.backward ? [...read].reverse() : read;
    const link = (direction: string, at: K): string =>
      relativeLink(request, this.codec.encode(listScope(request), [direction, ...page.keyset.encode(at)]));
    // Onwards (in the direction read): after the last row read, or after the frontier of the scan.
    const onwardRow = read.length > 0 ? read[read.length - 1] : null;
    const onward = more && onwardRow ? position(onwardRow) : frontier;
    // Back the other way: from the first row read (or, on an empty page, from where it started).
    const backRow = read.length > 0 ? read[0] : null;
    const back = page.after === null ? null : backRow ? position(backRow) : (frontier ?? page.after);
    const forward = page.backward ? back : onward;
    const backward = page.backward ? onward : back;
    return {
      rows: visible,
      next: forward === null ? null : link(FORWARD, forward),
      previous: backward === null ? null : link(BACKWARD, backward),
    };
  }
}
