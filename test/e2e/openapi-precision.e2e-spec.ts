import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API, startApi, type TestApi } from '../support/api';

type Schema = Record<string, unknown>;
type Operation = { security?: unknown[]; parameters?: Array<{ in: string; name: string; schema?: Schema }>; requestBody?: { content: Record<string, { schema: Schema }> } };
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** The served document says exactly what the service accepts: typed ids, conditional rules, public operations, a clean lint. */
describe('OpenAPI precision of the served document', () => {
  let api: TestApi;
  let document: Document;
  const operations = (): Array<[string, string, Operation]> =>
    Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => [method, path, operation] as [string, string, Operation]));

  beforeAll(async () => {
    api = await startApi();
    document = (await api.raw.get(`${API}/schema/`).expect(200)).body as Document;
  });
  afterAll(() => api.close());

  it('passes `redocly lint` with the recommended ruleset without an error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      let output: string;
      try {
        output = execFileSync(process.execPath, [join(process.cwd(), 'node_modules', '@redocly/cli', 'bin', 'cli.js'), 'lint', file, '--config', join(process.cwd(), 'redocly.yaml'), '--format', 'json'], {
          encoding: 'utf8',
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? '');
      }
      const report = JSON.parse(output.slice(output.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; severity: string; message: string }> };
      expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(report.totals.errors).toBe(0);
      // Warnings allowed: the contract's trailing-slash paths, and two public GETs (API index, schema) that have no 4xx answer.
      const warnings = report.problems.filter((p) => p.ruleId !== 'no-path-trailing-slash');
      expect(warnings.map((p) => p.ruleId)).toEqual(warnings.length === 0 ? [] : ['operation-4xx-response', 'operation-4xx-response'].slice(0, warnings.length));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('types every path parameter: UUID ids, shipment_id an integer ≥ 1', () => {
    const params = operations().flatMap(([, , operation]) => (operation.parameters ?? []).filter((p) => p.in === 'path'));
    expect(params.length).toBeGreaterThan(40);
    for (const parameter of params) {
      if (parameter.name === 'shipment_id') expect(parameter.schema).toEqual({ type: 'integer', minimum: 1 });
      else expect(parameter.schema).toEqual({ type: 'string', format: 'uuid' });
    }
  });

  it('declares every `{name}` of a path as a required path parameter (found missing on /accounts/{account_id}/)', () => {
    const missing = operations().flatMap(([method, path, operation]) =>
      [...path.matchAll(/\{([^}]+)\}/g)]
        .map((match) => match[1])
        .filter((name) => !(operation.parameters ?? []).some((p) => p.in === 'path' && p.name === name && (p as { required?: boolean }).required === true))
        .map((name) => `${method.toUpperCase()} ${path}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('declares `security: []` on the public operations and OAuth2 scopes on every other', () => {
    const open = operations()
      .filter(([, , operation]) => Array.isArray(operation.security) && operation.security.length === 0)
      .map(([method, path]) => `${method.toUpperCase()} ${path}`)
      .sort();
    expect(open).toEqual([`GET ${API}/`, `GET ${API}/schema/`, `POST ${API}/oauth/token/`].sort());
    for (const [, , operation] of operations()) expect(Array.isArray(operation.security)).toBe(true);
  });

  it('states the conditional rules in the schema', () => {
    const { CreateShipmentDto, ShipmentLegInputDto, CreateCarrierDto, CarrierDto } = document.components.schemas;
    expect(CreateShipmentDto.anyOf).toEqual([
      expect.objectContaining({ required: ['template_id'] }),
      expect.objectContaining({ required: ['origin_location_id', 'destination_location_id'] }),
    ]);
    expect(ShipmentLegInputDto.anyOf).toEqual([
      expect.objectContaining({ properties: { mode: { type: 'string', enum: ['sea'] } } }),
      expect.objectContaining({ properties: { vessel_mmsi: { type: 'string', nullable: true, enum: [null] }, vessel_imo: { type: 'string', nullable: true, enum: [null] } } }),
    ]);
    expect(CreateCarrierDto.additionalProperties).toBe(false);
    expect(CarrierDto.additionalProperties).toBeUndefined(); // responses may grow
  });
});
