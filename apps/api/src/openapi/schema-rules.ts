import type { OpenAPIObject } from '@nestjs/swagger';
import { IDENTIFIER_MODES } from '@app/domain';

type Schema = Record<string, unknown>;
type Operation = { security?: unknown[]; parameters?: Array<{ in: string; name: string; required?: boolean; schema?: Schema }>; requestBody?: { content?: Record<string, { schema?: Schema }> } };

/**
 * The rules of the contract that the decorators cannot state, applied to the generated document
 * in one place (and checked by test/e2e/openapi-precision.e2e-spec.ts):
 * - operations that need no token (API index, schema, token endpoint) declare `security: []`;
 * - every `*_id` path parameter is a UUID, except `shipment_id` (an integer ≥ 1);
 * - conditional rules: a shipment create needs `template_id` or both locations (`anyOf`); vessel
 *   identifiers only on sea legs;
 * - request bodies refuse unknown properties (`additionalProperties: false`), as the validator does.
 */
export function applySchemaRules(document: OpenAPIObject): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const inputSchemas = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    const templateNames = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    for (const operation of Object.values(item as Record<string, Operation>)) {
      if (typeof operation !== 'object' || operation === null) continue;
      if (operation.security === undefined) operation.security = [];
      // Every `{name}` of the path is a declared path parameter, whatever the controller's decorators said.
      for (const name of templateNames) {
        if (!(operation.parameters ?? []).some((parameter) => parameter.in === 'path' && parameter.name === name)) {
          operation.parameters = [...(operation.parameters ?? []), { name, in: 'path', required: true }];
        }
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'path' || !parameter.name.endsWith('_id')) continue;
        parameter.schema = parameter.name === 'shipment_id' ? { type: 'integer', minimum: 1 } : { type: 'string', format: 'uuid' };
      }
      const body = operation.requestBody?.content?.['application/json']?.schema;
      if (body) collectReferences(body, schemas, inputSchemas);
    }
  }
  for (const name of inputSchemas) {
    const schema = schemas[name];
    if (schema.type === 'object' && schema.properties && name !== 'TokenRequestDto') schema.additionalProperties = false;
  }
  if (schemas.CreateShipmentDto) {
    schemas.CreateShipmentDto.anyOf = [
      { required: ['template_id'], properties: { template_id: { type: 'string', format: 'uuid' } } },
      { required: ['origin_location_id', 'destination_location_id'], properties: { origin_location_id: { type: 'string', format: 'uuid' }, destination_location_id: { type: 'string', format: 'uuid' } } },
    ];
  }
  for (const leg of ['ShipmentLegInputDto', 'TransportLegDto']) {
    if (!schemas[leg]) continue;
    schemas[leg].anyOf = [
      { required: ['mode'], properties: { mode: { type: 'string', enum: ['sea'] } } },
      { properties: { vessel_mmsi: { type: 'string', nullable: true, enum: [null] }, vessel_imo: { type: 'string', nullable: true, enum: [null] } } },
    ];
  }
  // A carrier's identifiers apply by mode: each one is null (or absent) unless the mode takes it.
  if (schemas.CreateCarrierDto) {
    schemas.CreateCarrierDto.allOf = Object.entries(IDENTIFIER_MODES).map(([field, modes]) => ({
      anyOf: [{ required: ['mode'], properties: { mode: { type: 'string', enum: [...modes] } } }, { properties: { [field]: { type: 'string', nullable: true, enum: [null] } } }],
    }));
  }
  // COMPANY_ADMIN is never granted through the API (409 `role_not_assignable`): not offered in the input schemas.
  for (const name of ['CreateInvitationDto', 'UpdateUserDto']) {
    const role = (schemas[name]?.properties as Record<string, Schema> | undefined)?.role;
    if (role && Array.isArray(role.enum)) role.enum = role.enum.filter((value) => value !== 'COMPANY_ADMIN');
  }
  // A share's lifetime: exactly one of `expires_at` and `expires_in_hours`.
  if (schemas.PutShareDto) schemas.PutShareDto.oneOf = [{ required: ['expires_at'] }, { required: ['expires_in_hours'] }];
  return document;
}

function collectReferences(schema: unknown, schemas: Record<string, Schema>, found: Set<string>): void {
  if (Array.isArray(schema)) {
    for (const item of schema) collectReferences(item, schemas, found);
    return;
  }
  if (schema === null || typeof schema !== 'object') return;
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string') {
    const name = ref.split('/').pop() as string;
    if (found.has(name) || !schemas[name]) return;
    found.add(name);
    collectReferences(schemas[name], schemas, found);
    return;
  }
  for (const value of Object.values(schema)) collectReferences(value, schemas, found);
}
