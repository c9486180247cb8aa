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
    let next: string | null = null;
    if (hasMore) {
      const url = new URL(`${this.config.publicBaseUrl}${request.path}`);
      for (const [name, value] of Object.entries(request.query)) {
        if (name !== 'cursor' && typeof value === 'string') url.searchParams.set(name, value);
      }
      url.searchParams.set('cursor', this.codec.encode(listScope(request), page.keyset.encode(position(visible[visible.length - 1]))));
      next = url.toString();
    }
    return { data: visible.map(present), links: { next } };
  }
}
