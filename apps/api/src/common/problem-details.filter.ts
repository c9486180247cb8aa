import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { ValidationFailedError } from '@app/domain';
import { ApiError, asApiError, fromDomainError } from './api-error';
import type { ErrorCode } from '@app/vocabulary';
import { NestingTooDeepError } from './hostile-input';
import { isDatabaseUnavailable } from './database-unavailable';
import { OAuthError } from '../auth/oauth-error';
import { LOGGER, type AppLogger } from '@app/observability';

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code: string;
  instance?: string;
  errors?: Array<{ field: string; code: string; message: string }>;
  error_id?: string;
}

const FRAMEWORK_CODES: Record<number, [ErrorCode, string]> = {
  400: ['validation_failed', 'Bad request'],
  401: ['invalid_token', 'Unauthorized'],
  403: ['insufficient_scope', 'Forbidden'],
  404: ['not_found', 'Not found'],
  405: ['method_not_allowed', 'Method not allowed'],
  413: ['payload_too_large', 'Payload too large'],
  415: ['unsupported_media_type', 'Unsupported media type'],
  429: ['rate_limited', 'Too many requests'],
};

/** Body-parser failures arrive as plain errors carrying `type` and `status`. */
interface BodyParserError {
  type?: string;
  status?: number;
  statusCode?: number;
}

export const problemType = (code: string): string => `urn:coldchain:problem:${code}`;

export function toProblem(error: ApiError, instance?: string): ProblemDetails {
  return {
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    ...(error.detail ? { detail: error.detail } : {}),
    code: error.code,
    ...(instance ? { instance } : {}),
    ...(error.errors ? { errors: error.errors } : {}),
  };
}

/** Maps every error, ours or the framework's, to RFC 9457 problem details; never leaks internals. */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: AppLogger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const response = http.getResponse<Response>();
    const request = http.getRequest<Request>();
    if (exception instanceof OAuthError) {
      response.status(exception.status);
      for (const [name, value] of Object.entries(exception.headers)) response.setHeader(name, value);
      response.json(exception.toBody());
      return;
    }
    const apiError = this.toApiError(exception, request);
    const problem = toProblem(apiError, request.originalUrl?.split('?')[0]);
    if (apiError.status >= 500) {
      problem.error_id = randomUUID();
      this.logger.error({ err: exception, error_id: problem.error_id, request_id: request.id }, 'unhandled error');
    }
    if (response.headersSent) return;
    response.status(apiError.status);
    for (const [name, value] of Object.entries(apiError.headers)) response.setHeader(name, value);
    response.setHeader('Content-Type', 'application/problem+json; charset=utf-8');
    response.send(JSON.stringify(problem));
  }

  private toApiError(exception: unknown, request: Request): ApiError {
    const refusal = asApiError(exception); // ours: a domain error's status is its code's in ERROR_CODES
    if (refusal) return refusal;
    // Raised by the body parser's depth check; the Express adapter may wrap it in a BadRequestException.
    const deep = exception instanceof NestingTooDeepError ? exception : exception instanceof HttpException && exception.cause instanceof NestingTooDeepError ? exception.cause : null;
    if (deep) return fromDomainError(new ValidationFailedError([{ field: deep.field, code: 'nesting_too_deep', message: deep.message }], 'The request body is nested too deeply.'));
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const [code, title]: [ErrorCode, string] = FRAMEWORK_CODES[status] ?? (status >= 500 ? ['internal_error', 'Internal error'] : ['validation_failed', 'Bad request']);
      if (status === 404) {
        return new ApiError(404, code, title, `No resource at ${request.method} ${request.path}.`);
      }
      if (status >= 500) return new ApiError(500, 'internal_error', 'Internal error', 'Unexpected failure.');
      return new ApiError(status, code, title, exception.message);
    }
    const bodyError = exception as BodyParserError | null;
    const status = bodyError?.status ?? bodyError?.statusCode;
    if (bodyError && typeof bodyError.type === 'string' && typeof status === 'number' && status < 500) {
      if (bodyError.type === 'entity.too.large') {
        return new ApiError(413, 'payload_too_large', 'Payload too large', 'The request body is larger than 1 MiB.');
      }
      if (bodyError.type === 'entity.parse.failed') {
        return new ApiError(400, 'validation_failed', 'Malformed body', 'The request body is not valid JSON.', [
          { field: 'body', code: 'malformed_json', message: 'The request body is not valid JSON.' },
        ]);
      }
      return new ApiError(status, FRAMEWORK_CODES[status]?.[0] ?? 'validation_failed', 'Bad request', 'The request body could not be read.');
    }
    if (isDatabaseUnavailable(exception)) {
      return new ApiError(503, 'service_unavailable', 'Service unavailable', 'The service is busy; retry shortly.', undefined, { 'Retry-After': '1' });
    }
    return new ApiError(500, 'internal_error', 'Internal error', 'Unexpected failure; quote error_id to support.');
  }
}
