import { API, startApi, type TestApi } from '../support/api';
import { assertValidOpenApiDocument } from '../support/contract';
import { SPEC_SCOPES } from '../support/spec-endpoints';

type Operation = {
  security?: Array<Record<string, string[]>>;
  description?: string;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema?: unknown; examples?: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

/** Every operation of spec §4.6 and §4.8 with its scopes and the statuses it must document. */
const OPERATIONS: Array<[string, string, string[], string[]]> = [
  ['get', '/shipments/', ['shipments:read'], ['200', '400', '401', '403', '429']],
  ['post', '/shipments/create/', ['shipments:write'], ['201', '400', '401', '403', '409', '422', '429']],
  ['get', '/shipments/{shipment_id}/', ['shipments:read'], ['200', '401', '403', '404', '429']],
  ['put', '/shipments/{shipment_id}/', ['shipments:write'], ['200', '400', '401', '403', '404', '409', '429']],
  ['delete', '/shipments/{shipment_id}/', ['shipments:write'], ['204', '401', '403', '404', '409', '429']],
  ['post', '/shipments/{shipment_id}/complete/', ['shipments:complete'], ['200', '401', '403', '404', '409', '429']],
  ['get', '/shipments/{shipment_id}/share/', ['shipments:read', 'shipments:share'], ['200', '401', '403', '404', '429']],
  ['put', '/shipments/{shipment_id}/share/', ['shipments:share'], ['200', '400', '401', '403', '404', '429']],
  ['delete', '/shipments/{shipment_id}/share/', ['shipments:share'], ['204', '401', '403', '404', '429']],
  ['get', '/shipments/{shipment_id}/tracking/', ['shipments:tracking:read'], ['200', '400', '401', '403', '404', '429']],
  ['get', '/reports/', ['reports:read'], ['200', '400', '401', '403', '429']],
  ['get', '/reports/{report_id}/', ['reports:read'], ['200', '401', '403', '404', '429']],
  ['get', '/reports/{report_id}/download/', ['reports:read'], ['200', '401', '403', '404', '429']],
];

describe('OpenAPI description of shipments and reports', () => {
  let api: TestApi;
  let paths: Record<string, Record<string, Operation>>;

  beforeAll(async () => {
    api = await startApi();
    paths = (api.document as { paths: Record<string, Record<string, Operation>> }).paths;
  });
  afterAll(() => api.close());

  it('is a valid OpenAPI document', async () => {
    await assertValidOpenApiDocument(api.document);
  });

  it.each(OPERATIONS)('%s %s declares %j and documents its statuses', (method, path, scopes, statuses) => {
    const operation = paths[`${API}${path}`]?.[method];
    expect(operation).toBeDefined();
    expect(operation.security).toEqual([{ oauth2: scopes }]);
    const specScopes = SPEC_SCOPES[`${method.toUpperCase()} ${path}`];
    if (specScopes) expect(scopes.join(' + ')).toBe(specScopes);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(statuses));
    for (const status of statuses.filter((s) => s >= '400')) {
      expect(operation.responses[status].content?.['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/ProblemDetailsDto' });
    }
    if (path.includes('{shipment_id}')) {
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'shipment_id', in: 'path', schema: expect.objectContaining({ type: 'integer' }) }));
    }
  });

  it('requires an Idempotency-Key on the create, documents examples, and describes the webhook data', () => {
    const create = paths[`${API}/shipments/create/`].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }));
    expect(Object.keys(create.requestBody?.content['application/json']?.examples ?? {})).toEqual(['fromTemplate', 'explicitRoute']);
    expect(create.description).toContain('shipment.created');
    expect(paths[`${API}/shipments/{shipment_id}/`].get.description).toContain('same representation');
  });

  it('documents the download as a binary PDF or CSV and the share URL rule', () => {
    const download = paths[`${API}/reports/{report_id}/download/`].get;
    expect(Object.keys(download.responses['200'].content ?? {})).toEqual(['application/pdf', 'text/csv']);
    const schemas = (api.document as { components: { schemas: Record<string, { properties: Record<string, { description?: string }> }> } }).components.schemas;
    expect(schemas.ShareDto.properties.url.description).toContain('The same URL on every GET');
    expect(Object.keys(schemas.ShipmentDto.properties)).toEqual(
      expect.arrayContaining(['id', 'status', 'origin', 'destination', 'transport_legs', 'active_transport_leg', 'devices', 'ais_position', 'summary']),
    );
  });

  it('keeps the public tracking page out of the API description and publishes the new error codes', () => {
    expect(Object.keys(paths).filter((p) => p.includes('track/'))).toEqual([]);
    const description = (api.document as { info: { description: string } }).info.description;
    for (const code of ['shipment_not_active', 'shipment_completed', 'too_many_devices', 'device_not_eligible', 'in_use']) {
      expect(description).toContain(`\`${code}\``);
    }
  });
});
