import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { createLogger } from '@app/observability';
import { redactPath, requestLogger } from './request-logging';

function sink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
}

function respond(status: number, log: ReturnType<typeof requestLogger>): void {
  const req = { id: 'rid-1', method: 'GET', originalUrl: '/api/public/v1/devices/?limit=5', url: '/api/public/v1/devices/?limit=5', headers: {} };
  const res = Object.assign(new EventEmitter(), { statusCode: status, writableEnded: true, getHeader: () => undefined });
  log(req as unknown as Request, res as unknown as Response, (() => undefined) as NextFunction);
  res.emit('finish');
  res.emit('close');
}

describe('requestLogger at LOG_LEVEL=warn', () => {
  it('writes only 5xx responses, once, as pino-http does', async () => {
    const lines: string[] = [];
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'warn'; // under jest (NODE_ENV=test) the logger is silent otherwise
    const log = requestLogger(createLogger('warn', 'api', sink(lines)));
    if (previous === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = previous;
    respond(200, log);
    respond(404, log);
    respond(503, log);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 50,
      service: 'api',
      req: { id: 'rid-1', method: 'GET', path: '/api/public/v1/devices/' },
      res: { status: 503 },
      err: { type: 'Error', message: 'failed with status code 503' },
      msg: 'request errored',
    });
  });
});

describe('redactPath', () => {
  it('hides the share token of tracking page paths and nothing else', () => {
    expect(redactPath('/track/3q2-7wEjYk8nJ0sGm9bV_1xRr5uTzQpLhA4cDf6eKoI')).toBe('/track/[redacted]');
    expect(redactPath('/track/abc/')).toBe('/track/[redacted]/');
    expect(redactPath('/api/public/v1/shipments/12/share/')).toBe('/api/public/v1/shipments/12/share/');
  });
});
