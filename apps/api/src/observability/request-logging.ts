import type { Request, Response, NextFunction, RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import pinoHttp from 'pino-http';
import type { AppLogger } from '@app/observability';

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

type RequestWithId = Request & { id: string };

const requestFields = (req: RequestWithId) => ({ id: req.id, method: req.method, path: redactPath(req.originalUrl.split('?')[0]) });

/**
 * The lines pino-http writes when `info` is off (LOG_LEVEL=warn or above): 5xx responses only, at
 * `error`. pino-http would still build a child logger and serialize the request for every
 * request, only to drop the success line.
 */
function errorOnlyRequestLogger(logger: AppLogger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = Date.now();
    const done = (): void => {
      res.removeListener('finish', done);
      res.removeListener('close', done);
      if (res.statusCode < 500 || !logger.isLevelEnabled('error')) return;
      logger.error(
        {
          req: requestFields(req as RequestWithId),
          res: { status: res.statusCode },
          err: new Error(`failed with status code ${res.statusCode}`),
          responseTime: Date.now() - started,
        },
        'request errored',
      );
    };
    res.on('finish', done);
    res.on('close', done);
    next();
  };
}

/** One JSON line per request: method, path (no query, secrets redacted), status, duration, request id. No headers. */
export function requestLogger(logger: AppLogger): RequestHandler {
  if (!logger.isLevelEnabled('info')) return errorOnlyRequestLogger(logger);
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
