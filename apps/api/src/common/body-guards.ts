import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ValidationFailedError } from '@app/domain';
import { ApiError } from './api-error';
import { API_PREFIX } from './public-api-controller';

const FORM_ROUTES = new Set([`/${API_PREFIX}/oauth/token`, `/${API_PREFIX}/oauth/token/`]);
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

function hasBody(request: Request): boolean {
  return Number(request.headers['content-length'] ?? 0) > 0 || request.headers['transfer-encoding'] !== undefined;
}

/**
 * API bodies are JSON (the token endpoint also takes a form): a body of any other type would be
 * silently ignored by the parsers, so it is refused with 415 instead.
 */
export function requireJsonBodies(): RequestHandler {
  return (request: Request, _response: Response, next: NextFunction) => {
    const writes = request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH';
    if (!writes || !request.path.startsWith(`/${API_PREFIX}/`) || FORM_ROUTES.has(request.path) || !hasBody(request)) return next();
    if (JSON_TYPE.test(request.headers['content-type'] ?? '')) return next();
    next(new ApiError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the request body as application/json.'));
  };
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function findForbiddenKey(value: unknown, path: string, depth: number): string | null {
  if (depth > 32 || value === null || typeof value !== 'object') return null;
  for (const key of Object.keys(value)) {
    const here = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key)) return here;
    const found = findForbiddenKey((value as Record<string, unknown>)[key], here, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Keys that could reach an object's prototype are refused outright rather than silently dropped. */
export function rejectPrototypeKeys(): RequestHandler {
  return (request: Request, _response: Response, next: NextFunction) => {
    const field = findForbiddenKey(request.body, '', 0);
    if (!field) return next();
    next(new ValidationFailedError([{ field, code: 'forbidden_key', message: `${field} is not an accepted field` }]));
  };
}
