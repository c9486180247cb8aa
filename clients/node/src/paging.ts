import { ColdchainError } from './errors';
import type { ResponseInfo, WithResponse } from './types';

/** One page of a list: its records and the link to the next page. */
export interface Page<T> {
  data: T[];
  links: { next: string | null };
}

type PageFetcher<T> = (nextUrl: string | undefined) => Promise<WithResponse<Page<T>>>;

/**
 * A list call. Iterate it with `for await` to get every record, page after page (it follows
 * `links.next`; cursors are opaque and never computed by the client), or ask for pages.
 * Nothing is requested until it is iterated or `firstPage()` is called.
 */
export class Paginator<T> implements AsyncIterable<T> {
  readonly #fetchPage: PageFetcher<T>;

  constructor(fetchPage: PageFetcher<T>) {
    this.#fetchPage = fetchPage;
  }

  /** The first page only (with `lastResponse`). */
  firstPage(): Promise<WithResponse<Page<T>>> {
    return this.#fetchPage(undefined);
  }

  /** Every page, in order. */
  async *pages(): AsyncGenerator<WithResponse<Page<T>>, void, undefined> {
    let next: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await this.#fetchPage(next);
      yield page;
      next = page.links?.next ?? undefined;
      if (next !== undefined) {
        if (seen.has(next)) throw new ColdchainError(`paging loop: links.next repeats ${new URL(next).pathname}`);
        seen.add(next);
      }
    } while (next !== undefined);
  }

  /** Every record of every page, in order. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects the records into an array (at most `max`, default: all). */
  async toArray(options: { max?: number } = {}): Promise<T[]> {
    const max = options.max ?? Infinity;
    const records: T[] = [];
    if (max <= 0) return records;
    for await (const record of this) {
      records.push(record);
      if (records.length >= max) break;
    }
    return records;
  }
}

export type { ResponseInfo };
