import type { Scope } from '@app/vocabulary';
import { applyDecorators, Delete, Get, HttpCode, Patch, Post, Put, type Type } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse } from '@nestjs/swagger';
import { Scopes } from '../../auth/auth.decorators';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { problemResponse } from '../openapi-responses';
import { ApiPageResponse } from '../paging';

/** OpenAPI Example Objects by name. */
export type BodyExamples = Record<string, { summary: string; value: unknown }>;

/** How one catalogue family appears in the routes and the OpenAPI description. */
export interface CatalogueDocs {
  /** Singular, lower case: "location". */
  noun: string;
  plural: string;
  /** Identifier path parameter: "location_id". */
  param: string;
  readScope: Scope;
  writeScope: Scope;
  /** The record as responses carry it. */
  dto: Type<unknown>;
  /** Request body examples for POST and PUT. */
  examples?: BodyExamples;
  /** Family rules worth stating on the write operations. */
  rules?: string;
}

const INVALID_BODY = 'Unknown field, missing required field, invalid value or reference (`validation_failed`, each field named in `errors`).';
const notFound = (docs: CatalogueDocs) => problemResponse(404, `No ${docs.noun} with this id in the selected account (\`not_found\`).`);
const idParam = (docs: CatalogueDocs) => ApiParam({ name: docs.param, format: 'uuid', description: `Identifier of the ${docs.noun}.` });
/** "a location", "an alert preset". */
const a = (noun: string) => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;
const withRules = (text: string, docs: CatalogueDocs) => (docs.rules ? `${text}\n\n${docs.rules}` : text);

export const ListRecords = (docs: CatalogueDocs): MethodDecorator =>
  applyDecorators(
    Get(),
    Scopes(docs.readScope),
    ApiOperation({ summary: `List ${docs.plural}`, description: `A page of the selected account’s ${docs.plural}, oldest first.` }),
    ApiPageResponse(docs.dto),
    ApiResponse(problemResponse(400, 'Invalid paging parameters (`validation_failed`, `invalid_cursor`).')),
  );

export const CreateRecord = (docs: CatalogueDocs, body: Type<unknown>): MethodDecorator =>
  applyDecorators(
    Post(),
    HttpCode(201),
    Scopes(docs.writeScope),
    Idempotent(),
    ApiOperation({
      summary: `Create ${a(docs.noun)}`,
      description: withRules(`Creates ${a(docs.noun)} in the selected account. Optional fields not sent take their defaults.`, docs),
    }),
    ApiBody({ type: body, examples: docs.examples }),
    ApiCreatedResponse({ type: docs.dto, description: `The created ${docs.noun}.` }),
    ApiResponse(problemResponse(400, INVALID_BODY)),
  );

export const GetRecord = (docs: CatalogueDocs): MethodDecorator =>
  applyDecorators(
    Get(`:${docs.param}`),
    Scopes(docs.readScope),
    idParam(docs),
    ApiOperation({ summary: `Get ${a(docs.noun)}` }),
    ApiOkResponse({ type: docs.dto }),
    ApiResponse(notFound(docs)),
  );

export const ReplaceRecord = (docs: CatalogueDocs, body: Type<unknown>): MethodDecorator =>
  applyDecorators(
    Put(`:${docs.param}`),
    Scopes(docs.writeScope),
    idParam(docs),
    ApiOperation({
      summary: `Replace ${a(docs.noun)}`,
      description: withRules(
        'Replaces every writable field: required fields must be sent (400 otherwise) and optional fields not sent return to their defaults. Unknown fields are refused.',
        docs,
      ),
    }),
    ApiBody({ type: body, examples: docs.examples }),
    ApiOkResponse({ type: docs.dto, description: `The ${docs.noun} as stored.` }),
    ApiResponse(problemResponse(400, INVALID_BODY)),
    ApiResponse(notFound(docs)),
  );

export const UpdateRecord = (docs: CatalogueDocs, body: Type<unknown>): MethodDecorator =>
  applyDecorators(
    Patch(`:${docs.param}`),
    Scopes(docs.writeScope),
    idParam(docs),
    ApiOperation({
      summary: `Update ${a(docs.noun)}`,
      description: withRules(
        'Changes only the fields sent; the others stay as they are. A nested object or list sent is replaced as a whole. Send null to clear an optional field. Unknown fields are refused.',
        docs,
      ),
    }),
    ApiBody({ type: body }),
    ApiOkResponse({ type: docs.dto, description: `The ${docs.noun} as stored.` }),
    ApiResponse(problemResponse(400, INVALID_BODY)),
    ApiResponse(notFound(docs)),
  );

export const DeleteRecord = (docs: CatalogueDocs): MethodDecorator =>
  applyDecorators(
    Delete(`:${docs.param}`),
    HttpCode(204),
    Scopes(docs.writeScope),
    idParam(docs),
    ApiOperation({ summary: `Delete ${a(docs.noun)}`, description: `Deletes the ${docs.noun}; refused while another record still references it.` }),
    ApiNoContentResponse({ description: 'Deleted.' }),
    ApiResponse(notFound(docs)),
    ApiResponse(problemResponse(409, `The ${docs.noun} is still referenced — by a shipment template, an active shipment or a device’s settings (\`in_use\`).`)),
  );
