import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ValidateBy, type ValidationOptions } from 'class-validator';
import { ValidationFailedError } from '@app/domain';
import { ZONED_TIMESTAMP_PATTERN } from '@app/vocabulary';

/**
 * Deepest nesting of arrays and objects a JSON body may have. Every body of the API fits in 8
 * (a polygon geofence inside a shipment is the deepest); the bound stops a body of 100,000 nested
 * arrays before JSON.parse and every recursive walk after it.
 */
export const MAX_JSON_DEPTH = 32;

/** A body nested deeper than MAX_JSON_DEPTH, found by scanning the raw bytes before parsing. */
export class NestingTooDeepError extends Error {
  readonly status = 400;
  readonly type = 'nesting_too_deep';
  constructor(readonly field: string) {
    super(`${field} is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }
const COLON = 0x3a;

/**
 * Scans raw JSON (valid or not) for nesting deeper than `limit`, outside strings. Returns the
 * top-level field the deep value sits in ("body" when the top level is not an object), or null.
 * Linear, allocation-free except for the key it reports.
 */
export function findDeepNesting(raw: Buffer, limit = MAX_JSON_DEPTH): string | null {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let stringStart = -1;
  let lastTopLevelString: [number, number] | null = null;
  let topLevelKey: [number, number] | null = null;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) {
        inString = false;
        if (depth === 1) lastTopLevelString = [stringStart + 1, i];
      }
      continue;
    }
    if (byte === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (byte === COLON && depth === 1 && lastTopLevelString) {
      topLevelKey = lastTopLevelString;
    } else if (OPEN.has(byte)) {
      depth++;
      if (depth > limit) {
        if (raw[0] !== 0x7b && firstNonSpace(raw) !== 0x7b) return 'body';
        return topLevelKey ? raw.subarray(topLevelKey[0], topLevelKey[1]).toString('utf8') : 'body';
      }
    } else if (CLOSE.has(byte)) {
      depth--;
    }
  }
  return null;
}

function firstNonSpace(raw: Buffer): number | undefined {
  for (const byte of raw) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return byte;
  return undefined;
}

/** The body parser's `verify` hook: refuses over-deep JSON before it is parsed. */
export function verifyJsonDepth(_request: unknown, _response: unknown, raw: Buffer): void {
  const field = findDeepNesting(raw);
  if (field !== null) throw new NestingTooDeepError(field);
}

// A NUL cannot be stored in PostgreSQL text; a lone surrogate is not Unicode and would be altered on the way.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isUnstorableText = (text: string): boolean => text.includes('\u0000') || LONE_SURROGATE.test(text);

/** The first field (dotted path, array indexes as segments) whose key or string value cannot be stored. */
export function findUnstorableText(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return isUnstorableText(value) ? path || 'body' : null;
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return null;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const here = path ? `${path}.${key}` : key;
    if (isUnstorableText(key)) return here;
    const found = findUnstorableText(child, here, depth + 1);
    if (found) return found;
  }
  return null;
}

function decodedPathSegments(path: string): string[] {
  return path.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment; // malformed escapes are the router's to refuse
    }
  });
}

/**
 * Refuses a NUL character or a lone surrogate anywhere in the path, the query or the body with a
 * 400 naming the field, instead of a database error (500) or silently altered text.
 */
export function rejectUnstorableText(): RequestHandler {
  return (request: Request, _response: Response, next: NextFunction) => {
    const field =
      (decodedPathSegments(request.path).some(isUnstorableText) ? 'path' : null) ??
      findUnstorableText(request.query, '') ??
      findUnstorableText(request.body, '');
    if (!field) return next();
    next(
      new ValidationFailedError(
        [{ field, code: 'invalid_character', message: `${field} contains a NUL character or an unpaired surrogate, which text fields cannot hold` }],
        'The request contains characters that cannot be stored.',
      ),
    );
  };
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: what every timestamp column and ISO 8601 can hold. */
export const EARLIEST_TIMESTAMP_MS = Date.parse('0001-01-01T00:00:00.000Z');
export const LATEST_TIMESTAMP_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** A valid ISO 8601 timestamp with a time zone whose instant falls in years 0001–9999 (UTC). */
export function isBoundedTimestamp(value: unknown): boolean {
  if (typeof value !== 'string' || !ZONED_TIMESTAMP_PATTERN.test(value)) return false;
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && ms >= EARLIEST_TIMESTAMP_MS && ms <= LATEST_TIMESTAMP_MS;
}

/**
 * An ISO 8601 timestamp with a time zone, in years 0001–9999 once normalised to UTC
 * (`9999-12-31T23:59:59-14:00` is in year 10000 and refused). Error code `timestamp_out_of_range`.
 */
export function IsBoundedTimestamp(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'timestamp_out_of_range',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !ZONED_TIMESTAMP_PATTERN.test(value) || Number.isNaN(Date.parse(value)) || isBoundedTimestamp(value),
        defaultMessage: () => '$property must fall between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z',
      },
    },
    options,
  );
}
