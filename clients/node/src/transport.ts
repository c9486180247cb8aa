import { randomUUID } from 'node:crypto';
import { apiErrorFor, ApiError, ColdchainError, ConnectionError, TimeoutError } from './errors';
import type { FieldError } from './generated/models';
import { OPERATIONS, type OperationId } from './generated/operations';
import type { CreateOptions, ResponseInfo, WithResponse } from './types';
import { VERSION } from './version';

export const API_PREFIX = '/api/public/v1';

/** A minimal logger: any object with these methods (console works). Never receives a secret or token. */
export interface Logger {
  debug?(message: string): void;
  warn?(message: string): void;
}

export interface TransportOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  scopes?: readonly string[];
  accountId?: string | null;
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryTimeMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  tokenRefreshMarginSeconds?: number;
  fetch?: typeof fetch;
  userAgent?: string;
  logger?: Logger;
}

export type PathParam = string | number;
export type QueryValue = string | number | boolean | Date | null | undefined | ReadonlyArray<string | number | boolean | Date>;

export interface CallSpec {
  operationId: OperationId;
  pathParams?: readonly PathParam[];
  query?: Record<string, unknown>;
  body?: unknown;
  options?: CreateOptions;
  /** An absolute `links.next` URL to request instead of the operation's path and query. */
  nextUrl?: string;
}

/** Answers that say the request was not carried out: retried for every request (clients/README.md). */
const RETRY_ALWAYS = new Set([429, 503]);
/** A gateway's answers: the request may have reached the service, so only what is safe to repeat is retried. */
const RETRY_IF_REPEATABLE = new Set([502, 504]);
const KEY_PATTERN = /^[\x21-\x7e]{8,128}$/;

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** `Retry-After` in milliseconds (delta-seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

interface CachedToken {
  value: string;
  /** Epoch ms after which the token is no longer used (shortly before it expires). */
  refreshAt: number;
  scope: string;
}

/** One answered attempt, or the failure of one. */
type Attempt = { response: Response; clear: () => void; abort: (reason: unknown) => void } | { error: unknown };

/**
 * The HTTP core shared by every resource: builds the request from the operation table, holds the
 * OAuth token (fetched on first use, cached until shortly before it expires, refreshed once on a
 * 401), sends X-Service-Account-ID and Idempotency-Key, retries politely and turns failures into
 * typed errors. The client secret and the token live in private fields only.
 */
export class Transport {
  readonly origin: string;
  readonly accountId: string | null;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxRetryTimeMs: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly #clientId: string;
  readonly #clientSecret: string;
  readonly #scopes: readonly string[];
  readonly #fetch: typeof fetch;
  readonly #userAgent: string;
  readonly #userAgentOption: string | undefined;
  readonly #logger: Logger | undefined;
  readonly #marginSeconds: number;
  #shared: { token: CachedToken | null; pending: Promise<CachedToken> | null };

  constructor(options: TransportOptions, shared?: Transport) {
    if (!options.baseUrl) throw new ColdchainError('baseUrl is required');
    if (!options.clientId || !options.clientSecret) throw new ColdchainError('clientId and clientSecret are required');
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ColdchainError('baseUrl must be an http(s) URL');
    // Accept the service root or the API base (…/api/public/v1); the document's paths carry the prefix.
    let prefix = url.pathname.replace(/\/+$/, '');
    if (prefix.endsWith(API_PREFIX)) prefix = prefix.slice(0, -API_PREFIX.length);
    this.origin = `${url.origin}${prefix}`;
    this.accountId = options.accountId ?? null;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryTimeMs = options.maxRetryTimeMs ?? 60_000;
    this.backoffBaseMs = options.backoffBaseMs ?? 500;
    this.backoffMaxMs = options.backoffMaxMs ?? 8_000;
    this.#clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#scopes = options.scopes ?? [];
    this.#fetch = options.fetch ?? globalThis.fetch;
    if (typeof this.#fetch !== 'function') throw new ColdchainError('no fetch implementation: Node.js 20 or later is required');
    // The SDK's own product token first, the caller's appended (as in every client of this family).
    this.#userAgentOption = options.userAgent;
    this.#userAgent = `coldchain-node/${VERSION} node/${process.versions.node}${options.userAgent ? ` ${options.userAgent}` : ''}`;
    this.#logger = options.logger;
    this.#marginSeconds = options.tokenRefreshMarginSeconds ?? 60;
    this.#shared = shared ? shared.#shared : { token: null, pending: null };
  }

  get clientId(): string {
    return this.#clientId;
  }

  /** The same credential and token cache, working in another account by default. */
  withAccount(accountId: string | null): Transport {
    return new Transport(
      {
        baseUrl: this.origin,
        clientId: this.#clientId,
        clientSecret: this.#clientSecret,
        scopes: this.#scopes,
        accountId,
        timeoutMs: this.timeoutMs,
        maxRetries: this.maxRetries,
        maxRetryTimeMs: this.maxRetryTimeMs,
        backoffBaseMs: this.backoffBaseMs,
        backoffMaxMs: this.backoffMaxMs,
        tokenRefreshMarginSeconds: this.#marginSeconds,
        fetch: this.#fetch,
        userAgent: this.#userAgentOption,
        logger: this.#logger,
      },
      this,
    );
  }

  // ---------------------------------------------------------------- token

  /** A valid access token: the cached one, or a new one from the token endpoint. */
  async token(options: { force?: boolean; signal?: AbortSignal } = {}): Promise<string> {
    const shared = this.#shared;
    const cached = shared.token;
    if (!options.force && cached && Date.now() < cached.refreshAt) return cached.value;
    if (!shared.pending) {
      shared.pending = this.#exchange(options.signal).finally(() => {
        shared.pending = null;
      });
    }
    return (await shared.pending).value;
  }

  /** Drops the cached token (when it is the one given), so that the next call fetches a new one. */
  invalidateToken(value?: string): void {
    if (!value || this.#shared.token?.value === value) this.#shared.token = null;
  }

  /** POST /oauth/token/ (client credentials). Returns the token response; caches the token. */
  async exchangeToken(signal?: AbortSignal): Promise<{ access_token: string; token_type: string; expires_in: number; scope: string }> {
    const token = await this.#exchange(signal);
    return token.raw;
  }

  async #exchange(signal?: AbortSignal): Promise<CachedToken & { raw: { access_token: string; token_type: string; expires_in: number; scope: string } }> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.#clientId, client_secret: this.#clientSecret });
    if (this.#scopes.length > 0) form.set('scope', this.#scopes.join(' '));
    const { body } = await this.#send({
      operationId: 'TokenController_token',
      url: `${this.origin}${OPERATIONS.TokenController_token.path}`,
      init: { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString() },
      authenticate: false,
      options: { signal },
      allowConnectionRetry: true,
    });
    const raw = body as { access_token?: unknown; token_type?: string; expires_in?: unknown; scope?: string };
    if (typeof raw?.access_token !== 'string' || typeof raw.expires_in !== 'number') {
      throw new ColdchainError('the token endpoint answered without access_token/expires_in');
    }
    const lifetime = raw.expires_in;
    const margin = Math.min(this.#marginSeconds, lifetime * 0.1);
    const token = { value: raw.access_token, refreshAt: Date.now() + (lifetime - margin) * 1000, scope: raw.scope ?? '' };
    this.#shared.token = token;
    this.#logger?.debug?.(`coldchain: obtained an access token valid ${lifetime} s (scopes: ${token.scope})`);
    return { ...token, raw: { access_token: raw.access_token, token_type: raw.token_type ?? 'Bearer', expires_in: lifetime, scope: token.scope } };
  }

  // ---------------------------------------------------------------- calls

  /** Builds the URL of an operation (or takes a `links.next` URL on this client's origin). */
  url(spec: CallSpec): string {
    const operation = OPERATIONS[spec.operationId];
    if (spec.nextUrl) {
      // Follow links.next on the client's own origin: the token never goes to another host.
      const next = new URL(spec.nextUrl, `${this.origin}/`);
      return `${this.origin}${pathAfterOrigin(next, this.origin)}${next.search}`;
    }
    const params = [...(spec.pathParams ?? [])];
    if (params.length !== operation.pathParams.length) {
      throw new ColdchainError(`${spec.operationId} takes ${operation.pathParams.length} path parameter(s), got ${params.length}`);
    }
    let index = 0;
    const path = operation.path.replace(/\{[^}]+\}/g, () => {
      const value = params[index++];
      if (value === undefined || value === null || String(value) === '') throw new ColdchainError(`${spec.operationId}: empty path parameter`);
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) appendQuery(search, name, value);
    const query = search.toString();
    return `${this.origin}${path}${query ? `?${query}` : ''}`;
  }

  /** Calls an operation and returns its parsed JSON body (undefined for 204). */
  async call<T>(spec: CallSpec): Promise<WithResponse<T>> {
    const operation = OPERATIONS[spec.operationId];
    const options = spec.options ?? {};
    const headers: Record<string, string> = {};
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    let idempotencyKey: string | undefined;
    if (operation.idempotencyKey) {
      idempotencyKey = options.idempotencyKey ?? `node-${randomUUID()}`;
      if (!KEY_PATTERN.test(idempotencyKey)) throw new ColdchainError('idempotencyKey must be 8 to 128 visible ASCII characters');
      headers['Idempotency-Key'] = idempotencyKey;
    }
    const { body, info } = await this.#send({
      operationId: spec.operationId,
      url: this.url(spec),
      init: { method: operation.method, headers, body: spec.body === undefined ? undefined : JSON.stringify(spec.body) },
      authenticate: operation.authenticated,
      accountHeader: operation.accountHeader,
      options,
      // A connection error may hide a request that was executed: repeat only what is safe to repeat.
      allowConnectionRetry: operation.method !== 'POST' || idempotencyKey !== undefined,
      idempotencyKey,
    });
    return withResponse(body, info) as WithResponse<T>;
  }

  /** Calls an operation that answers a file; returns the response with its body unread. */
  async stream(spec: CallSpec): Promise<{ response: Response; info: ResponseInfo; abort: (reason: unknown) => void }> {
    const operation = OPERATIONS[spec.operationId];
    const { response, info, abort } = await this.#send({
      operationId: spec.operationId,
      url: this.url(spec),
      init: { method: operation.method, headers: {} },
      authenticate: operation.authenticated,
      accountHeader: operation.accountHeader,
      options: spec.options ?? {},
      allowConnectionRetry: operation.method !== 'POST',
      stream: true,
    });
    return { response: response!, info, abort: abort! };
  }

  async #send(request: {
    operationId: OperationId;
    url: string;
    init: { method: string; headers: Record<string, string>; body?: string };
    authenticate: boolean;
    accountHeader?: boolean;
    options: CreateOptions;
    allowConnectionRetry: boolean;
    idempotencyKey?: string;
    stream?: boolean;
  }): Promise<{ body: unknown; info: ResponseInfo; response?: Response; abort?: (reason: unknown) => void }> {
    const { options } = request;
    const method = request.init.method;
    const path = new URL(request.url).pathname;
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const started = Date.now();
    let retries = 0;
    let refreshed = false;
    const accountId = options.accountId !== undefined ? options.accountId : this.accountId;

    for (;;) {
      const headers: Record<string, string> = {
        Accept: 'application/json, application/problem+json;q=0.9, */*;q=0.5',
        'User-Agent': this.#userAgent,
        ...(options.headers ?? {}),
        ...request.init.headers,
      };
      let token: string | undefined;
      if (request.authenticate) {
        token = await this.token({ signal: options.signal });
        headers.Authorization = `Bearer ${token}`;
      }
      if (request.accountHeader && accountId) headers['X-Service-Account-ID'] = accountId;

      const attempt = await this.#attempt(request.url, { method, headers, body: request.init.body }, timeoutMs, options.signal);
      let delay: number | undefined;
      let failure: unknown;

      if ('error' in attempt) {
        failure = attempt.error;
        if (options.signal?.aborted) throw options.signal.reason;
        if (request.allowConnectionRetry) delay = this.#backoff(retries);
      } else {
        const { response, clear, abort } = attempt;
        const status = response.status;
        if (status === 401 && request.authenticate && !refreshed) {
          // The token may have been revoked or rotated out: fetch a new one, once.
          refreshed = true;
          clear();
          await discard(response);
          this.invalidateToken(token);
          this.#logger?.debug?.(`coldchain: ${method} ${path} answered 401; refreshing the access token`);
          continue;
        }
        if (response.ok) {
          const info = responseInfo(response, request.idempotencyKey);
          if (request.stream) {
            // The headers came in time; the body's own idle timeout is the caller's (reports.download).
            clear();
            return { body: undefined, info, response, abort };
          }
          // The attempt's timeout covers the body too: a body that stalls fails the attempt, which
          // is then retried like a lost connection where that is safe.
          let text: string | undefined;
          try {
            text = await response.text();
          } catch (error) {
            if (options.signal?.aborted) throw options.signal.reason;
            failure = this.#bodyError(error, timeoutMs, method, path);
            if (request.allowConnectionRetry) delay = this.#backoff(retries);
          } finally {
            clear();
          }
          if (text !== undefined) return { body: text ? parseJson(text, method, path, status, info.requestId) : undefined, info };
        } else {
          let text = '';
          try {
            text = await response.text();
          } catch {
            // The error body could not be read: the status alone is reported.
          } finally {
            clear();
          }
          const error = problemError(response, text, method, path);
          failure = error;
          const retryable =
            RETRY_ALWAYS.has(status) ||
            (RETRY_IF_REPEATABLE.has(status) && request.allowConnectionRetry) ||
            (status === 409 && error.code === 'idempotency_request_in_progress');
          if (retryable) delay = retryAfterMs(response.headers.get('retry-after')) ?? this.#backoff(retries);
        }
      }

      const elapsed = Date.now() - started;
      if (delay === undefined || retries >= maxRetries || elapsed + delay > this.maxRetryTimeMs) {
        throw toThrowable(failure, method, path, timeoutMs);
      }
      retries += 1;
      this.#logger?.warn?.(`coldchain: ${method} ${path} ${describe(failure)}; retry ${retries}/${maxRetries} in ${Math.round(delay)} ms`);
      await sleep(delay, options.signal);
    }
  }

  async #attempt(url: string, init: { method: string; headers: Record<string, string>; body?: string }, timeoutMs: number, signal?: AbortSignal): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new TimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = (): void => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const clear = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    try {
      const response = await this.#fetch(url, { ...init, redirect: 'manual', signal: controller.signal });
      return { response, clear, abort: (reason: unknown) => controller.abort(reason) };
    } catch (error) {
      clear();
      return { error: controller.signal.reason instanceof TimeoutError ? controller.signal.reason : error };
    }
  }

  /** Exponential backoff with full jitter: 0..min(backoffMaxMs, backoffBaseMs · 2^n) (defaults 8 s and 0.5 s). */
  #backoff(retry: number): number {
    return Math.random() * Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** retry);
  }

  #bodyError(error: unknown, timeoutMs: number, method: string, path: string): unknown {
    if (error instanceof ColdchainError) return error;
    return toThrowable(error, method, path, timeoutMs);
  }

  /** What console.log and util.inspect show: never the secret or the token. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.origin, clientId: this.#clientId, accountId: this.accountId };
  }
}

function pathAfterOrigin(next: URL, origin: string): string {
  // links.next is absolute on the service's public address; keep its path, which already carries
  // any prefix of this client's base URL when both point at the same service.
  const prefix = new URL(origin).pathname.replace(/\/+$/, '');
  return prefix && next.pathname.startsWith(`${prefix}/`) ? next.pathname.slice(prefix.length) : next.pathname;
}

function appendQuery(search: URLSearchParams, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) appendQuery(search, name, item);
    return;
  }
  if (value instanceof Date) search.append(name, value.toISOString());
  else if (typeof value === 'object') throw new ColdchainError(`query parameter ${name} must be a scalar`);
  else search.append(name, String(value));
}


async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // nothing to release
  }
}

function responseInfo(response: Response, idempotencyKey: string | undefined): ResponseInfo {
  const rateLimit = response.headers.get('ratelimit') ?? undefined;
  const remaining = rateLimit === undefined ? undefined : /(?:^|;)\s*r=(\d+)/.exec(rateLimit)?.[1];
  const reset = rateLimit === undefined ? undefined : /(?:^|;)\s*t=(\d+)/.exec(rateLimit)?.[1];
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    idempotentReplayed: response.headers.get('idempotent-replayed') === 'true',
    idempotencyKey,
    rateLimit,
    rateLimitPolicy: response.headers.get('ratelimit-policy') ?? undefined,
    rateLimitRemaining: remaining === undefined ? undefined : Number(remaining),
    rateLimitResetSeconds: reset === undefined ? undefined : Number(reset),
    headers: response.headers,
  };
}

function withResponse(body: unknown, info: ResponseInfo): unknown {
  const target = body !== null && typeof body === 'object' ? body : {};
  Object.defineProperty(target, 'lastResponse', { value: info, enumerable: false, configurable: true });
  return body === undefined ? undefined : target;
}

function parseJson(text: string, method: string, path: string, status: number, requestId?: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ColdchainError(`${method} ${path} answered ${status} with a body that is not JSON${requestId ? ` (request ${requestId})` : ''}`);
  }
}

/** A typed error from a problem document (or an OAuth error body, or nothing readable). */
function problemError(response: Response, text: string, method: string, path: string): ApiError {
  let body: Record<string, unknown> = {};
  try {
    const parsed = text ? (JSON.parse(text) as unknown) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: keep the status
  }
  const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const code = str(body.code) ?? str(body.error) ?? `http_${response.status}`;
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  const errors = Array.isArray(body.errors)
    ? (body.errors as unknown[]).filter((e): e is FieldError => !!e && typeof e === 'object').map((e) => ({ field: String(e.field), code: String(e.code), message: String(e.message) }))
    : [];
  return apiErrorFor({
    status: response.status,
    code,
    title: str(body.title) ?? (response.statusText || `HTTP ${response.status}`),
    detail: str(body.detail) ?? str(body.error_description),
    type: str(body.type),
    errors,
    requestId: response.headers.get('x-request-id') ?? undefined,
    errorId: str(body.error_id),
    retryAfterSeconds: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
    method,
    path,
    body,
  });
}

function describe(failure: unknown): string {
  if (failure instanceof ApiError) return `answered ${failure.status} ${failure.code}`;
  if (failure instanceof TimeoutError) return 'timed out';
  return 'could not connect';
}

/** The error to throw: API errors as they are, anything else as a Connection/TimeoutError (no URL credentials, no headers). */
function toThrowable(failure: unknown, method: string, path: string, timeoutMs: number): Error {
  if (failure instanceof ApiError) return failure;
  if (failure instanceof TimeoutError) return new TimeoutError(`${method} ${path}: no answer within ${timeoutMs} ms`, { cause: failure });
  if (failure instanceof ColdchainError) return failure;
  const cause = failure as { cause?: { code?: string; message?: string }; message?: string } | undefined;
  const reason = cause?.cause?.code ?? cause?.cause?.message ?? cause?.message ?? 'network error';
  return new ConnectionError(`${method} ${path}: could not reach the service (${reason})`, { cause: failure });
}

