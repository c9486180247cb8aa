import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { createHash } from 'node:crypto';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { ApiError, asApiError } from '../api-error';
import { toProblem } from '../problem-details.filter';
import type { AuthenticatedRequest } from '../../auth/principal';
import { IdempotencyRepository, type IdempotencyScope } from './idempotency.repository';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const KEY_PATTERN = /^[\x21-\x7e]{8,128}$/;

/** JSON with sorted keys, so that `{"a":1,"b":2}` and `{"b":2,"a":1}` are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Stripe's rule: a refusal the operation reached only after it began executing — a state conflict
 * (409), a gone record (410), an unprocessable request (422) — is an answer, stored and replayed
 * under its key. Anything refused before executing (400 validation, 401, 403, 404 of the record
 * the path names, 413, 415, 429) is not stored: the client may correct the request and retry with
 * the same key.
 */
export function isExecutedRefusal(status: number): boolean {
  return status === 409 || status === 410 || status === 422;
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path.replace(/\/+$/, '')}\n${canonical(body ?? null)}`).digest('hex');
}

/**
 * Record-creating POSTs: the first request with a key runs, its response is stored, and a repeat
 * with the same request gets the same response (`Idempotent-Replayed: true`) without side effects.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly store: IdempotencyRepository) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return from(this.run(context, next));
  }

  private async run(context: ExecutionContext, next: CallHandler): Promise<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    const key = request.header(IDEMPOTENCY_HEADER);
    if (key === undefined || key === '') {
      throw new ApiError(400, 'idempotency_key_required', 'Idempotency-Key required', 'This POST creates a record: send an Idempotency-Key header (8 to 128 characters).');
    }
    if (!KEY_PATTERN.test(key)) {
      throw new ApiError(400, 'idempotency_key_invalid', 'Invalid Idempotency-Key', 'Idempotency-Key must be 8 to 128 visible ASCII characters.');
    }
    if (!request.principal || !request.accountId) throw new Error('Idempotency requires an authenticated, tenant-scoped route');
    const scope: IdempotencyScope = { credentialId: request.principal.credentialId, accountId: request.accountId, key };
    const claim = await this.store.claim(scope, requestFingerprint(request.method, request.path, request.body));
    if (claim.outcome === 'mismatch') {
      throw new ApiError(422, 'idempotency_key_reused', 'Idempotency-Key reused', 'This Idempotency-Key was already used for a different request.');
    }
    if (claim.outcome === 'in_progress') {
      throw new ApiError(409, 'idempotency_request_in_progress', 'Request in progress', 'The first request with this Idempotency-Key is still being processed; retry shortly.', undefined, { 'Retry-After': '1' });
    }
    if (claim.outcome === 'replay') {
      response.status(claim.status);
      for (const [name, value] of Object.entries(claim.headers)) response.setHeader(name, value);
      response.setHeader('Idempotent-Replayed', 'true');
      if (claim.status >= 400) {
        response.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
      }
      return claim.body;
    }
    try {
      const body = await lastValueFrom(next.handle(), { defaultValue: undefined });
      const location = response.getHeader('Location');
      await this.store.complete(scope, response.statusCode, body, typeof location === 'string' ? { Location: location } : {});
      return body;
    } catch (error) {
      // A business refusal is an answer too: replaying it keeps "same key, same response".
      const refusal = asApiError(error);
      if (refusal && isExecutedRefusal(refusal.status)) {
        await this.store.complete(scope, refusal.status, toProblem(refusal, request.originalUrl.split('?')[0]), refusal.headers);
      } else {
        await this.store.release(scope);
      }
      throw error;
    }
  }
}
