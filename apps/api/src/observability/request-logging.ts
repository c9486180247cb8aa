import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import pinoHttp from 'pino-http';
import type { AppLogger } from './logger';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a well-formed X-Request-ID or assigns one, on every response. */
export function requestId(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.header('x-request-id');
    const id = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    (req as Request & { id: string }).id = id;
    res.setHeader('X-Request-ID', id);
    next();
  };
}

/** Paths that carry a secret in a segment (share links): the segment never reaches the log. */
const SECRET_PATH_SEGMENTS = [/^(\/track\/)[^/]+/];

export function redactPath(path: string): string {
  return SECRET_PATH_SEGMENTS.reduce((result, pattern) => result.replace(pattern, '$1[redacted]'), path);
}

/** One JSON line per request: method, path (no query, secrets redacted), status, duration, request id. No headers. */
export function requestLogger(logger: AppLogger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req) => (req as unknown as { id: string }).id,
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: redactPath(req.url.split('?')[0]),
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  }) as unknown as RequestHandler;
}
