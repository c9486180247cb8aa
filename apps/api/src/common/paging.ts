import { createHmac, timingSafeEqual } from 'node:crypto';
import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type as TransformType } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiError } from './api-error';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** `limit` and `cursor`, the paging parameters every list accepts. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: 'Page size.' })
  @IsOptional()
  @TransformType(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque cursor taken from `links.next` of the previous page.' })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  cursor?: string;
}

export class PageLinksDto {
  @ApiProperty({ type: String, nullable: true, format: 'uri', description: 'Absolute URL of the next page; null on the last page.' })
  next: string | null;
}

export interface Page<T> {
  data: T[];
  links: { next: string | null };
}

export class InvalidCursorError extends ApiError {
  constructor() {
    super(400, 'invalid_cursor', 'Invalid cursor', 'The cursor is malformed, tampered with, or belongs to another list.', [
      { field: 'cursor', code: 'invalid_cursor', message: 'Take the cursor unchanged from links.next.' },
    ]);
  }
}

/**
 * Opaque, tamper-evident keyset cursors: `base64url(json).base64url(hmac)`. The payload binds the
 * list (path + filters) so a cursor cannot be replayed against another query.
 */
export class CursorCodec {
  constructor(private readonly key: Buffer) {}

  encode(scope: string, position: unknown[]): string {
    const payload = Buffer.from(JSON.stringify({ s: scope, p: position })).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(scope: string, cursor: string): unknown[] {
    const [payload, signature, ...rest] = cursor.split('.');
    if (!payload || !signature || rest.length > 0) throw new InvalidCursorError();
    const expected = Buffer.from(this.sign(payload));
    const actual = Buffer.from(signature);
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw new InvalidCursorError();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw new InvalidCursorError();
    }
    const body = parsed as { s?: unknown; p?: unknown };
    if (body.s !== scope || !Array.isArray(body.p)) throw new InvalidCursorError();
    return body.p;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url').slice(0, 32);
  }
}

/** Swagger: `{ data: T[], links: { next } }`. */
export function ApiPageResponse(model: Type<unknown>, description = 'A page of records.'): MethodDecorator {
  return applyDecorators(
    ApiExtraModels(model, PageLinksDto),
    ApiOkResponse({
      description,
      schema: {
        type: 'object',
        required: ['data', 'links'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          links: { $ref: getSchemaPath(PageLinksDto) },
        },
      },
    }),
  );
}
