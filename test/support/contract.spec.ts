import { jest } from '@jest/globals';
import Ajv from 'ajv';
import { assertValidOpenApiDocument, ContractValidator, type ContractResponse } from './contract';

const json = (schema: object) => ({ 'application/json': { schema } });
const problem = { type: 'object', required: ['title', 'status'], properties: { title: { type: 'string' }, status: { type: 'integer' } } };
const kind = (value: string) => ({ type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: [value] } } });

/** Shaped like @nestjs/swagger 3.0 output: global prefix inside the paths, empty servers. */
const doc30 = {
  openapi: '3.0.0',
  info: { title: 'Sample', version: '1.0.0' },
  servers: [],
  paths: {
    // Declared before the literal path on purpose: preference must not depend on order.
    '/api/public/v1/shipments/{shipment_id}/': {
      get: { responses: { '200': { description: 'Shipment', content: json(kind('shipment')) } } },
      post: { responses: { '201': { description: 'Updated', content: json(kind('updated')) } } },
      delete: { responses: { '204': { description: 'Deleted' } } },
    },
    '/api/public/v1/shipments/create/': {
      post: { responses: { '201': { description: 'Created', content: json(kind('created')) } } },
    },
    '/api/public/v1/shipments/{shipment_id}/label.pdf': {
      get: { responses: { '200': { description: 'Label', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } } } },
    },
    '/api/public/v1/devices/{device_id}/telemetry/': {
      get: {
        responses: {
          '200': { description: 'Page', content: json({ $ref: '#/components/schemas/TelemetryPage' }) },
          '4XX': {
            description: 'Client error',
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/LegacyError' } },
              'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
            },
          },
          default: { description: 'Unexpected', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Sensor: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
      Telemetry: {
        type: 'object',
        required: ['recorded_at', 'temperature'],
        properties: {
          recorded_at: { type: 'string', format: 'date-time' },
          temperature: { type: 'number', example: 4.5 },
          humidity: { type: 'number', nullable: true },
          unit: { type: 'string', enum: ['C', 'F'], nullable: true },
          sensor: { nullable: true, type: 'object', allOf: [{ $ref: '#/components/schemas/Sensor' }] },
          default: { type: 'boolean', nullable: true },
        },
      },
      TelemetryPage: {
        type: 'object',
        required: ['items'],
        properties: {
          items: { type: 'array', items: { $ref: '#/components/schemas/Telemetry' } },
          next: { type: 'string', format: 'uri', nullable: true },
        },
      },
      LegacyError: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
      Problem: problem,
    },
  },
};

/** 3.1 document whose paths are relative to the server URL. */
const doc31 = {
  openapi: '3.1.0',
  info: { title: 'Sample', version: '1.0.0' },
  servers: [{ url: '/api/public/v1' }],
  paths: {
    '/accounts/{account_id}/': {
      get: {
        responses: {
          '200': { description: 'Account', content: json({ $ref: '#/components/schemas/Account' }) },
          '404': { description: 'Missing', content: { 'application/problem+json': { schema: problem } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Account: {
        type: 'object',
        required: ['id', 'email', 'company'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          email: { type: 'string', format: 'email' },
          company: { type: ['string', 'null'] },
          owner: { anyOf: [{ $ref: '#/components/schemas/Owner' }, { type: 'null' }] },
        },
        examples: [{ id: '7d0f3a1e-6c1b-4d2e-9a57-3c2b1f0e8d9a' }],
      },
      Owner: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    },
  },
};

const DEVICE = '/api/public/v1/devices/3f0c8d2a-1b4e-4c6f-9a7d-2e5b8c1d0f3a/telemetry/';
const UUID = '7d0f3a1e-6c1b-4d2e-9a57-3c2b1f0e8d9a';
const reading = { recorded_at: '2024-05-01T10:00:00Z', temperature: 4.2 };

describe('ContractValidator (OpenAPI 3.0)', () => {
  const contract = new ContractValidator(doc30);
  const res = (overrides: Partial<ContractResponse>): ContractResponse => ({
    method: 'GET',
    path: DEVICE,
    status: 200,
    contentType: 'application/json; charset=utf-8',
    body: { items: [reading] },
    ...overrides,
  });

  it('accepts a body matching a $ref schema', () => {
    expect(contract.check(res({}))).toEqual([]);
  });

  it('names the offending field when the body does not match', () => {
    const violations = contract.check(res({ body: { items: [{ recorded_at: 'yesterday', temperature: 'cold' }] } }));
    expect(violations).toEqual(
      expect.arrayContaining([
        'body/items/0/temperature must be number',
        expect.stringContaining('body/items/0/recorded_at must match format "date-time"'),
      ]),
    );
    expect(contract.check(res({ body: { items: [{ temperature: 3 }] } }))).toEqual([
      "body/items/0 must have required property 'recorded_at'",
    ]);
  });

  it('treats nullable: true as allowing null, including nullable refs and enums', () => {
    const nulls = { ...reading, humidity: null, unit: null, sensor: null, default: null };
    expect(contract.check(res({ body: { items: [nulls], next: null } }))).toEqual([]);
    expect(contract.check(res({ body: { items: [{ ...reading, sensor: { id: UUID }, unit: 'C' }] } }))).toEqual([]);
    // Only the real cause is reported, not the "must be null" branch of the nullable wrapper.
    expect(contract.check(res({ body: { items: [{ ...reading, sensor: { id: 'nope' } }] } }))).toEqual([
      'body/items/0/sensor/id must match format "uuid"',
    ]);
    expect(contract.check(res({ body: { items: [{ ...reading, unit: 'K' }] } }))).toEqual([
      'body/items/0/unit must be equal to one of the allowed values ["C","F",null]',
    ]);
    expect(contract.check(res({ body: { items: [{ ...reading, temperature: null }] } }))).toEqual(['body/items/0/temperature must be number']);
  });

  it('prefers literal path segments over templates', () => {
    const post = (path: string, body: unknown) => contract.check(res({ method: 'POST', path, status: 201, body }));
    expect(post('/api/public/v1/shipments/create/', { kind: 'created' })).toEqual([]);
    expect(post('/api/public/v1/shipments/create/', { kind: 'updated' })).not.toEqual([]);
    expect(post(`/api/public/v1/shipments/${UUID}/`, { kind: 'updated' })).toEqual([]);
  });

  it('falls back to a template that documents the method when the literal path does not', () => {
    expect(contract.check(res({ path: '/api/public/v1/shipments/create/', body: { kind: 'shipment' } }))).toEqual([]);
  });

  it('matches templates inside a segment', () => {
    expect(contract.check(res({ path: `/api/public/v1/shipments/${UUID}/label.pdf`, contentType: 'application/pdf', body: Buffer.from('%PDF') }))).toEqual([]);
    expect(contract.check(res({ path: `/api/public/v1/shipments/${UUID}/labelXpdf` }))).toEqual([
      `path /api/public/v1/shipments/${UUID}/labelXpdf is not documented`,
    ]);
  });

  it('treats a trailing slash as optional, like Express does', () => {
    expect(contract.check(res({ path: DEVICE.slice(0, -1) }))).toEqual([]);
  });

  it('reports unknown paths and undocumented methods', () => {
    expect(contract.check(res({ path: '/api/public/v1/nope/' }))).toEqual(['path /api/public/v1/nope/ is not documented']);
    expect(contract.check(res({ method: 'PUT' }))).toEqual(['PUT is not documented for /api/public/v1/devices/{device_id}/telemetry/']);
  });

  it('reports undocumented status codes', () => {
    expect(contract.check(res({ method: 'DELETE', path: `/api/public/v1/shipments/${UUID}/`, status: 200 }))).toEqual([
      'status 200 is not documented for DELETE /api/public/v1/shipments/{shipment_id}/ (documented: 204)',
    ]);
  });

  it('ignores the body when the response documents no content', () => {
    expect(contract.check(res({ method: 'DELETE', path: `/api/public/v1/shipments/${UUID}/`, status: 204, contentType: undefined, body: {} }))).toEqual([]);
  });

  it('matches 4XX ranges and selects the schema by media type', () => {
    const notFound = { title: 'Not Found', status: 404 };
    expect(contract.check(res({ status: 404, contentType: 'application/problem+json; charset=utf-8', body: notFound }))).toEqual([]);
    expect(contract.check(res({ status: 404, contentType: 'application/json', body: { message: 'gone' } }))).toEqual([]);
    expect(contract.check(res({ status: 404, contentType: 'application/json', body: notFound }))).toEqual([
      "body must have required property 'message'",
    ]);
    expect(contract.check(res({ status: 404, contentType: 'text/html', body: '<h1>' }))).toEqual([
      'content-type text/html is not documented for status 4XX (documented: application/json, application/problem+json)',
    ]);
  });

  it('uses the default response for other statuses, falling back to its single media type', () => {
    expect(contract.check(res({ status: 503, contentType: undefined, body: { title: 'Down', status: 503 } }))).toEqual([]);
    expect(contract.check(res({ status: 500, body: { title: 'Oops' } }))).toEqual(["body must have required property 'status'"]);
  });

  it('compiles each schema once', () => {
    const fresh = new ContractValidator(doc30);
    // The shared base class (ajv/dist/core); reached through Ajv because ESM jest sees that CJS module's namespace, not the class.
    const spy = jest.spyOn(Object.getPrototypeOf(Ajv.prototype) as { getSchema: () => unknown }, 'getSchema');
    fresh.check(res({}));
    fresh.check(res({}));
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  it('does not prepend the server prefix twice when the paths already carry it', () => {
    const both = new ContractValidator({ ...doc30, servers: [{ url: '/api/public/v1' }] });
    expect(both.check(res({}))).toEqual([]);
  });

  it('assert throws with the request, violations and a body excerpt', () => {
    expect(() => contract.assert(res({}))).not.toThrow();
    expect(() => contract.assert(res({ body: { items: 'nope' } }))).toThrow(
      /GET \/api\/public\/v1\/devices\/.+\/telemetry\/ -> 200\n {2}- body\/items must be array\nBody: \{"items":"nope"\}/,
    );
  });
});

describe('ContractValidator (OpenAPI 3.1)', () => {
  const contract = new ContractValidator(doc31);
  const account = { id: UUID, email: 'ops@example.com', company: null, owner: null };
  const res = (overrides: Partial<ContractResponse>): ContractResponse => ({
    method: 'get',
    path: `/api/public/v1/accounts/${UUID}/`,
    status: 200,
    contentType: 'application/json',
    body: account,
    ...overrides,
  });

  it('applies the server URL prefix to relative paths', () => {
    expect(contract.check(res({}))).toEqual([]);
    expect(contract.check(res({ path: `/accounts/${UUID}/` }))).toEqual([`path /accounts/${UUID}/ is not documented`]);
  });

  it('accepts an absolute server URL', () => {
    const absolute = new ContractValidator({ ...doc31, servers: [{ url: 'https://api.example.com/api/public/v1/' }] });
    expect(absolute.check(res({}))).toEqual([]);
  });

  it('validates type unions, anyOf refs and formats', () => {
    expect(contract.check(res({ body: { ...account, company: 'Acme', owner: { name: 'Ada' } } }))).toEqual([]);
    expect(contract.check(res({ body: { ...account, email: 'not-an-email', owner: {} } }))).toEqual(
      expect.arrayContaining(['body/email must match format "email"', "body/owner must have required property 'name'"]),
    );
    expect(contract.check(res({ body: { ...account, company: 42 } }))).toContain('body/company must be string,null');
  });

  it('selects problem+json for documented errors', () => {
    expect(contract.check(res({ status: 404, contentType: 'application/problem+json', body: { title: 'Not Found', status: 404 } }))).toEqual([]);
    expect(contract.check(res({ status: 500 }))).toEqual([
      'status 500 is not documented for GET /api/public/v1/accounts/{account_id}/ (documented: 200, 404)',
    ]);
  });
});

describe('assertValidOpenApiDocument', () => {
  it('accepts valid 3.0 and 3.1 documents', async () => {
    await expect(assertValidOpenApiDocument(doc30)).resolves.toBeUndefined();
    await expect(assertValidOpenApiDocument(doc31)).resolves.toBeUndefined();
  });

  it('rejects an invalid document with the problems listed', async () => {
    const invalid = { openapi: '3.0.0', info: { title: 'Broken' }, paths: { '/x': { get: { responses: 'none' } } } };
    await expect(assertValidOpenApiDocument(invalid)).rejects.toThrow(/Invalid OpenAPI document:\n {2}- /);
  });
});
