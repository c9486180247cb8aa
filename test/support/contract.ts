import { execFile } from 'node:child_process';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

export interface ContractResponse {
  method: string;
  /** URL path without the query string. */
  path: string;
  status: number;
  /** Raw Content-Type header, parameters such as charset allowed. */
  contentType?: string;
  body: unknown;
}

type JsonObject = Record<string, unknown>;

interface Route {
  /** Key of the path item in `doc.paths`. */
  key: string;
  /** Template as matched against request paths, server prefix included when applicable. */
  template: string;
  regex: RegExp;
  /** One flag per segment (1 = literal); compared lexicographically so literal segments win. */
  literal: number[];
}

const DOC_ID = 'https://contract.invalid/openapi.json';
const isRecord = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates the document against the official OpenAPI schemas.
 * @seriousme/openapi-schema-validator is ESM-only and Jest's CommonJS runtime cannot load it
 * (not even through createRequire), so it runs in a plain Node child process, resolved from the
 * project root (jest's working directory).
 */
export async function assertValidOpenApiDocument(doc: object): Promise<void> {
  const script = `
    import { readFileSync } from 'node:fs';
    import { Validator } from '@seriousme/openapi-schema-validator';
    const result = await new Validator().validate(JSON.parse(readFileSync(0, 'utf8')));
    process.stdout.write(JSON.stringify(result));`;
  const output = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ['--input-type=module', '-e', script],
      { maxBuffer: 64 * 1024 * 1024, cwd: process.cwd() },
      (error, stdout, stderr) =>
        error ? reject(new Error(`OpenAPI validator process failed: ${stderr || error.message}`)) : resolve(stdout),
    );
    child.stdin?.end(JSON.stringify(doc));
  });
  const result: unknown = JSON.parse(output);
  if (isRecord(result) && result.valid === true) return;
  const errors = isRecord(result) ? result.errors : result;
  const problems = Array.isArray(errors)
    ? errors.map((e) => (isRecord(e) ? `${String(e.instancePath) || '(root)'} ${String(e.message)} ${JSON.stringify(e.params)}` : String(e)))
    : [String(errors)];
  throw new Error(`Invalid OpenAPI document:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
}

export class ContractValidator {
  private readonly doc: JsonObject;
  private readonly ajv: Ajv;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: object) {
    const doc: unknown = structuredClone(document);
    if (!isRecord(doc) || typeof doc.openapi !== 'string') throw new Error('Not an OpenAPI document');
    const options = { strict: false, allErrors: true };
    if (doc.openapi.startsWith('3.0.')) {
      normalizeOas30(doc);
      this.ajv = new Ajv(options);
    } else if (/^3\.[12]\./.test(doc.openapi)) {
      this.ajv = new Ajv2020(options);
    } else {
      throw new Error(`Unsupported OpenAPI version ${doc.openapi}`);
    }
    addFormats(this.ajv);
    // Registered whole so that `#/components/schemas/X` refs resolve against the document root.
    this.ajv.addSchema(doc, DOC_ID);
    this.doc = doc;
    this.routes = buildRoutes(doc);
  }

  check(res: ContractResponse): string[] {
    const method = res.method.toLowerCase();
    const path = res.path.split('?')[0];
    const matches = this.routes.filter((r) => r.regex.test(path));
    if (matches.length === 0) return [`path ${path} is not documented`];
    const candidates = matches.filter((r) => isRecord(this.resolve(['paths', r.key]).node[method]));
    if (candidates.length === 0) {
      return [`${method.toUpperCase()} is not documented for ${[...new Set(matches.map((r) => r.template))].join(', ')}`];
    }
    // Only templates that document the method compete, mirroring how the server routes by method too.
    const route = candidates.reduce((best, r) => (compareLiteral(r.literal, best.literal) > 0 ? r : best));
    const itemPointer = this.resolve(['paths', route.key]).pointer;
    const responses = this.resolve([...itemPointer, method, 'responses']).node;
    const code = String(res.status);
    const statusKey = [code, `${code[0]}XX`, 'default'].find((k) => k in responses);
    if (!statusKey) {
      return [`status ${code} is not documented for ${method.toUpperCase()} ${route.template} (documented: ${Object.keys(responses).join(', ')})`];
    }
    const response = this.resolve([...itemPointer, method, 'responses', statusKey]);
    const content = response.node.content;
    if (!isRecord(content) || Object.keys(content).length === 0) return [];

    const mediaTypes = Object.keys(content);
    const actual = res.contentType?.split(';')[0].trim().toLowerCase();
    const mediaType = mediaTypes.find((m) => m.toLowerCase() === actual) ?? (mediaTypes.length === 1 ? mediaTypes[0] : undefined);
    if (!mediaType) {
      return [`content-type ${res.contentType ?? '(none)'} is not documented for status ${statusKey} (documented: ${mediaTypes.join(', ')})`];
    }
    const media = content[mediaType];
    if (!/[/+]json$/i.test(mediaType) || !isRecord(media) || media.schema === undefined) return [];
    return this.validateBody([...response.pointer, 'content', mediaType, 'schema'], res.body);
  }

  assert(res: ContractResponse): void {
    const violations = this.check(res);
    if (violations.length === 0) return;
    const body = JSON.stringify(res.body) ?? String(res.body);
    const excerpt = body.length > 1000 ? `${body.slice(0, 1000)}…` : body;
    throw new Error(
      `Contract violation: ${res.method.toUpperCase()} ${res.path} -> ${res.status}\n` +
        violations.map((v) => `  - ${v}`).join('\n') +
        `\nBody: ${excerpt}`,
    );
  }

  private validateBody(pointer: string[], body: unknown): string[] {
    const ref = `${DOC_ID}#${pointer.map((p) => `/${encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))}`).join('')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      try {
        validate = this.ajv.getSchema(ref);
      } catch (error) {
        return [`schema at #/${pointer.join('/')} cannot be compiled: ${error instanceof Error ? error.message : String(error)}`];
      }
      if (!validate) return [`schema at #/${pointer.join('/')} cannot be resolved`];
      this.validators.set(ref, validate);
    }
    if (validate(body)) return [];
    const errors = validate.errors ?? [];
    // Nullable wrappers (`anyOf: [X, { type: 'null' }]`) add "must be null" and "must match a schema
    // in anyOf" next to the real cause; keep them only when nothing else explains the failure.
    const useful = errors.filter((e) => e.keyword !== 'anyOf' && !(e.keyword === 'type' && e.params.type === 'null'));
    return (useful.length > 0 ? useful : errors).map(formatAjvError);
  }

  /** Walks a JSON pointer from the document root, following a local `$ref` on the final node. */
  private resolve(pointer: string[], depth = 0): { node: JsonObject; pointer: string[] } {
    let node: unknown = this.doc;
    for (const part of pointer) node = isRecord(node) ? node[part] : undefined;
    if (!isRecord(node)) return { node: {}, pointer };
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/') && depth < 10) {
      const target = node.$ref.slice(2).split('/').map((p) => decodeURIComponent(p).replace(/~1/g, '/').replace(/~0/g, '~'));
      return this.resolve(target, depth + 1);
    }
    return { node, pointer };
  }
}

function buildRoutes(doc: JsonObject): Route[] {
  const server = Array.isArray(doc.servers) && isRecord(doc.servers[0]) ? doc.servers[0] : {};
  const variables = isRecord(server.variables) ? server.variables : {};
  const url = typeof server.url === 'string' ? server.url : '/';
  const expanded = url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isRecord(variable) && typeof variable.default === 'string' ? variable.default : whole;
  });
  const prefix = new URL(expanded, 'http://server.invalid').pathname.replace(/\/+$/, '');
  const paths = isRecord(doc.paths) ? Object.keys(doc.paths) : [];
  // Paths are relative to the server URL per spec, but @nestjs/swagger bakes the global prefix into
  // every path even when a server with that prefix is declared; don't prepend it twice then.
  const prefixed = paths.every((key) => key.startsWith(`${prefix}/`));
  return paths.map((key) => toRoute(key, prefixed ? key : prefix + key));
}

function toRoute(key: string, template: string): Route {
  // A trailing slash is optional on both sides: @nestjs/swagger strips it from documented paths
  // while Express (non-strict routing) serves the route with or without it.
  const segments = template.replace(/(.)\/$/, '$1').split('/');
  const pattern = segments
    .map((s) => s.split(/(\{[^}]+\})/).map((part) => (/^\{.+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join(''))
    .join('/');
  return { key, template, regex: new RegExp(`^${pattern}/?$`), literal: segments.map((s) => (s.includes('{') ? 0 : 1)) };
}

function compareLiteral(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function formatAjvError(error: ErrorObject): string {
  const where = `body${error.instancePath}`;
  const extra = error.keyword === 'additionalProperties' ? ` '${String(error.params.additionalProperty)}'`
    : error.keyword === 'enum' ? ` ${JSON.stringify(error.params.allowedValues)}`
    : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);
const NAMED_MAPS = new Set(['properties', 'patternProperties', 'schemas', 'definitions']);

/** Rewrites OpenAPI 3.0-only schema keywords into their JSON Schema equivalents, in place. */
function normalizeOas30(node: unknown, isNamedMap = false): void {
  if (Array.isArray(node)) return node.forEach((n) => normalizeOas30(n));
  if (!isRecord(node)) return;
  for (const [key, value] of Object.entries(node)) {
    // Keys of `properties` etc. are names, so a property called `default` is still a schema.
    if (isNamedMap) normalizeOas30(value);
    else if (!DATA_KEYS.has(key) && !key.startsWith('x-')) normalizeOas30(value, NAMED_MAPS.has(key));
  }
  if (isNamedMap) return;

  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']]) {
    if (node[flag] === true && typeof node[bound] === 'number') {
      node[flag] = node[bound];
      delete node[bound];
    } else if (typeof node[flag] === 'boolean') {
      delete node[flag];
    }
  }

  if (typeof node.nullable !== 'boolean') return;
  const nullable = node.nullable;
  delete node.nullable;
  if (!nullable) return;
  const wrapped = ['$ref', 'allOf', 'oneOf', 'anyOf'].filter((k) => k in node);
  if (wrapped.length > 0) {
    const inner: JsonObject = {};
    for (const k of wrapped) {
      inner[k] = node[k];
      delete node[k];
    }
    node.anyOf = [inner, { type: 'null' }];
    // @nestjs/swagger emits `{ nullable: true, type: 'object', allOf: [{ $ref }] }` for nullable nested DTOs.
    if (node.type === 'object' && !('properties' in node)) delete node.type;
  }
  if (typeof node.type === 'string') node.type = [node.type, 'null'];
  if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum = [...node.enum, null];
}
