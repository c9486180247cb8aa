import type { operations } from './generated/openapi';
import type { OperationId } from './generated/operations';

type Operation<O extends OperationId> = operations[O];

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON request body of an operation. */
export type RequestBody<O extends OperationId> = JsonOf<NonNullable<Operation<O>['requestBody']>>;

/** The query parameters of an operation (filters, `limit`; `cursor` is handled by the paginator). */
export type QueryParams<O extends OperationId> = Operation<O>['parameters'] extends { query?: infer Q } ? Omit<NonNullable<Q>, 'cursor'> : never;

type Responses<O extends OperationId> = Operation<O>['responses'];

/** The successful (200 or 201) JSON response body of an operation; void for 204. */
export type ResponseBody<O extends OperationId> = 200 extends keyof Responses<O>
  ? JsonOf<Responses<O>[200]>
  : 201 extends keyof Responses<O>
    ? JsonOf<Responses<O>[201]>
    : void;

/** The record type of a list operation's `data`. */
export type PageItem<O extends OperationId> = ResponseBody<O> extends { data: Array<infer I> } ? I : never;

/** What the client read from a successful response, besides its body. */
export interface ResponseInfo {
  status: number;
  /** `X-Request-ID` of the response. */
  requestId: string | undefined;
  /** `Idempotent-Replayed: true`: a stored response to an earlier request with the same key. */
  idempotentReplayed: boolean;
  /** The Idempotency-Key the request was sent with, for record-creating POSTs. */
  idempotencyKey: string | undefined;
  /** The `RateLimit` header (IETF draft), e.g. `"per-credential";r=118;t=42`. */
  rateLimit: string | undefined;
  /** The `RateLimit-Policy` header, e.g. `"per-credential";q=120;w=60`. */
  rateLimitPolicy: string | undefined;
  /** Requests left in the current window (`r=` of `RateLimit`). */
  rateLimitRemaining: number | undefined;
  /** Seconds until the window resets (`t=` of `RateLimit`). */
  rateLimitResetSeconds: number | undefined;
  headers: Headers;
}

/**
 * A response body with the response's details attached under `lastResponse` (not enumerable, so
 * it stays out of JSON.stringify and spreads).
 */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };

/** Per-call options of every method. */
export interface RequestOptions {
  /**
   * The account (tenant) this call works in, sent as X-Service-Account-ID. Overrides the client's
   * `accountId` for this call; `null` sends none.
   */
  accountId?: string | null;
  /** Timeout of each attempt in milliseconds, and the longest a download may stall (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** Retries of this call (see clients/README.md for what is retried; default: the client's `maxRetries`). */
  maxRetries?: number;
  /** Cancels the call (and its retries). */
  signal?: AbortSignal;
  /** Extra request headers (e.g. your own `X-Request-ID`). */
  headers?: Record<string, string>;
}

/** Options of a record-creating POST. */
export interface CreateOptions extends RequestOptions {
  /**
   * The Idempotency-Key (8–128 visible ASCII characters). Generated when not given; the client's
   * own retries reuse it. Pass your own to make a create safe to repeat across process restarts.
   */
  idempotencyKey?: string;
}
