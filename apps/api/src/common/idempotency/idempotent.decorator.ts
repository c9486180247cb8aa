import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import { problemResponse } from '../openapi-responses';
import { IdempotencyInterceptor } from './idempotency.interceptor';

/** Marks a record-creating POST: requires Idempotency-Key and replays the stored response. */
export function Idempotent(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: 'Idempotency-Key',
      required: true,
      description:
        'Unique key (8–128 visible ASCII characters) per record-creating request, kept 24 hours per credential and account. A repeat with the same request returns the stored response with `Idempotent-Replayed: true`. Only executed requests are stored (2xx, 409, 410, 422); a request refused before executing (400, 401, 403, 404, 413, 415, 429) may be corrected and retried with the same key.',
      schema: { type: 'string', minLength: 8, maxLength: 128 },
    }),
    ApiResponse(problemResponse(409, 'The first request with this key is still running (`idempotency_request_in_progress`), or a state conflict.')),
    ApiResponse(problemResponse(422, 'The key was used for a different request (`idempotency_key_reused`).')),
  );
}
