import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * A response body already serialized as JSON text (a handler that builds its JSON without
 * objects, e.g. a telemetry page): JsonReplyExpressAdapter writes `text` as it is.
 */
export class SerializedJson {
  constructor(readonly text: string) {}

  /** The same value for anything that serializes it again (a test, a logger): the parsed text. */
  toJSON(): unknown {
    return JSON.parse(this.text) as unknown;
  }
}

/**
 * Express's `res.json` turns the serialized body into a Buffer and hashes it for a weak ETag before
 * writing it: for a 1,000-point telemetry page (~150 kB) that is ~0.35 ms of CPU per request,
 * a fifth of the api's overhead over a bare server (BENCHMARKS.md). The api's JSON bodies are
 * written here as the serialized string, with the same Content-Type and Content-Length. They carry
 * no ETag (`etag` is off for the whole app): every response is computed in full anyway, and
 * cursor-paged data is not what conditional requests are for. Everything else (streams, errors,
 * bodies of other types, a Content-Type already set) goes through Nest's own reply.
 */
export class JsonReplyExpressAdapter extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!isPlainJsonBody(body) || response.getHeader('Content-Type') !== undefined) return super.reply(response, body, statusCode);
    if (statusCode !== undefined) response.status(statusCode);
    if (response.statusCode === 204 || response.statusCode === 304) return super.reply(response, body, statusCode);
    const text = body instanceof SerializedJson ? body.text : JSON.stringify(body);
    response.setHeader('Content-Type', JSON_CONTENT_TYPE);
    response.setHeader('Content-Length', Buffer.byteLength(text));
    return response.req.method === 'HEAD' ? response.end() : response.end(text);
  }
}

function isPlainJsonBody(body: unknown): body is object {
  return typeof body === 'object' && body !== null && !(body instanceof StreamableFile) && !(body instanceof Error) && !ArrayBuffer.isView(body);
}
