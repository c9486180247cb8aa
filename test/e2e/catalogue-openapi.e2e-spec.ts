import { API, startApi, type TestApi } from '../support/api';
import { assertValidOpenApiDocument } from '../support/contract';

type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema?: unknown; examples?: Record<string, unknown> }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

/** Every operation this feature adds, with the scopes it must declare and the statuses it must document. */
const OPERATIONS: Array<[string, string, string[], string[]]> = [];
for (const [collection, param, scope] of [
  ['locations', 'location_id', 'locations'],
  ['carriers', 'carrier_id', 'carriers'],
  ['receivers', 'receiver_id', 'receivers'],
  ['alert-presets', 'preset_id', 'alert-presets'],
  ['shipment-templates', 'template_id', 'shipment-templates'],
]) {
  const item = `/${collection}/{${param}}/`;
  OPERATIONS.push(
    ['get', `/${collection}/`, [`${scope}:read`], ['200', '400', '401', '403', '429']],
    ['post', `/${collection}/`, [`${scope}:write`], ['201', '400', '401', '403', '409', '422', '429']],
    ['get', item, [`${scope}:read`], ['200', '401', '403', '404', '429']],
    ['put', item, [`${scope}:write`], ['200', '400', '401', '403', '404', '429']],
    ['patch', item, [`${scope}:write`], ['200', '400', '401', '403', '404', '429']],
    ['delete', item, [`${scope}:write`], ['204', '401', '403', '404', '409', '429']],
  );
}
OPERATIONS.push(
  ['get', '/users/', ['users:read'], ['200', '400', '401', '403']],
  ['get', '/users/{user_id}/', ['users:read'], ['200', '401', '403', '404']],
  ['patch', '/users/{user_id}/', ['users:write'], ['200', '400', '401', '403', '404', '409']],
  ['delete', '/users/{user_id}/', ['users:write'], ['204', '401', '403', '404', '409']],
  ['get', '/roles/', ['users:read'], ['200', '401', '403']],
  ['get', '/user-invitations/', ['users:read'], ['200', '400', '401', '403']],
  ['post', '/user-invitations/', ['users:invite'], ['201', '400', '401', '403', '409', '422', '429']],
  ['delete', '/user-invitations/{invitation_id}/', ['users:invite'], ['204', '401', '403', '404', '409']],
);

describe('OpenAPI description of the catalogue, users and invitations', () => {
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
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(statuses));
    const success = statuses[0];
    if (success !== '204') expect(operation.responses[success].content?.['application/json']?.schema).toBeDefined();
    for (const status of statuses.filter((s) => s >= '400')) {
      expect(operation.responses[status].content?.['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/ProblemDetailsDto' });
    }
    if (method === 'post') {
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: true }));
      expect(Object.keys(operation.requestBody?.content['application/json']?.examples ?? {}).length).toBeGreaterThan(0);
    }
  });

  it('keeps the hosted page out of the API description', () => {
    expect(Object.keys(paths).filter((p) => p.includes('invitations/accept'))).toEqual([]);
  });

  it('publishes the new error codes', () => {
    const description = (api.document as { info: { description: string } }).info.description;
    for (const code of ['in_use', 'role_not_assignable', 'company_admin_protected', 'user_exists', 'already_invited', 'invitation_already_accepted']) {
      expect(description).toContain(`\`${code}\``);
    }
  });

  it('describes geofences as a circle or a polygon', () => {
    const schemas = (api.document as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }).components.schemas;
    expect(schemas.CreateLocationDto.properties.geofence).toMatchObject({
      oneOf: [{ $ref: '#/components/schemas/CircleGeofenceDto' }, { $ref: '#/components/schemas/PolygonGeofenceDto' }],
    });
  });
});
