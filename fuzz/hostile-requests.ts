/**
 * Schema-driven hostile requests: for every operation of the served OpenAPI document, variants
 * with wrong types, huge strings, deep nesting, NUL and lone surrogates, extreme numbers and
 * dates, prototype and duplicate keys, invalid JSON, wrong content types, garbage ids and cursors,
 * and odd Idempotency-Key / X-Service-Account-ID / Authorization values. Deterministic per seed.
 */

type Schema = Record<string, unknown>;
type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What the variant breaks, for the failure report. */
  variant: string;
}

export interface FuzzContext {
  /** Authorization header value of a credential with every scope. */
  authorization: string;
  /** The credential's account (sent as X-Service-Account-ID by the well-formed variants). */
  accountId: string;
  /** Ids of real records by path parameter name (`device_id`…), so that variants reach deep code. */
  ids: Record<string, string[]>;
  /**
   * Known-valid bodies by "METHOD /path/template": a variant breaks one field of a body the
   * service would accept, so it reaches the storage code rather than stopping at validation.
   */
  validBodies?: Record<string, Record<string, unknown>>;
}

/** mulberry32: small, fast, good enough to pick variants reproducibly. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HUGE = 'x'.repeat(100_000);
const HOSTILE_STRINGS = ['', HUGE, 'nul\u0000byte', 'half \ud800 pair', '\udc00', '../../etc/passwd', "' OR 1=1 --", '<script>alert(1)</script>', '%00', '\u202e\u0000', '😀'.repeat(1000)];
const HOSTILE_NUMBERS: unknown[] = [1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 1e-320, -0, 0, -1, 4294967296, 1.5];
const HOSTILE_DATES = ['9999-12-31T23:59:59-14:00', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00Z', '-000001-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-11-25T25:61:61Z', '2026-11-25', '1970-01-01T00:00:00+99:99'];
const GARBAGE_IDS = ['abc', '-1', '0', '99999999999999999999999', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000000', '%00', '%ED%A0%80', '%2e%2e%2f', 'x'.repeat(5000), '1e3', ' 1'];
const GARBAGE_CURSORS = ['', 'not-a-cursor', 'eyJ9', 'e30', '%00', 'A'.repeat(10_000), Buffer.from('{"k":[1,2,3],"f":"x"}').toString('base64url'), Buffer.from('{"__proto__":{"x":1}}').toString('base64url')];
const ODD_KEYS = ['', 'short', 'k'.repeat(129), 'has spaces in it', 'tab\there', 'ünïcödé-key', '"quoted-key"', '../../key'];
const ODD_ACCOUNTS = ['', 'not-a-uuid', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '01900000-0000-7000-8000-000000000000', 'x'.repeat(1000), ' , '];
const ODD_AUTH = ['', 'Bearer', 'Bearer ', 'Bearer not.a.jwt', 'Basic Zm9vOmJhcg==', `Bearer ${'a'.repeat(8000)}`, 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'];

function resolve(document: OpenApiDocument, schema: Schema | undefined, depth = 0): Schema {
  if (!schema || depth > 20) return {};
  const ref = schema.$ref;
  if (typeof ref === 'string') return resolve(document, document.components?.schemas?.[ref.split('/').pop() as string], depth + 1);
  for (const combinator of ['allOf', 'anyOf', 'oneOf'] as const) {
    const parts = schema[combinator];
    if (Array.isArray(parts) && parts.length > 0 && !schema.properties) {
      const merged: Schema = { type: 'object', properties: {}, required: [] };
      for (const part of combinator === 'allOf' ? parts : [parts[0]]) {
        const resolved = resolve(document, part as Schema, depth + 1);
        Object.assign(merged.properties as Schema, resolved.properties ?? {});
        (merged.required as string[]).push(...((resolved.required as string[]) ?? []));
        if (resolved.type && resolved.type !== 'object') return resolved;
      }
      return merged;
    }
  }
  return schema;
}

/** A plausible value for a schema (not necessarily valid: the service's answer is what is checked). */
function sample(document: OpenApiDocument, raw: Schema | undefined, context: FuzzContext, random: () => number, depth = 0): unknown {
  const schema = resolve(document, raw);
  if (depth > 6) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[Math.floor(random() * schema.enum.length)];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [name, child] of Object.entries((schema.properties as Record<string, Schema>) ?? {})) {
        if ((child as Schema).readOnly) continue;
        value[name] = name.endsWith('_id') ? pick(context.ids[name] ?? Object.values(context.ids).flat(), random) : sample(document, child, context, random, depth + 1);
      }
      return value;
    }
    case 'array':
      return [sample(document, schema.items as Schema, context, random, depth + 1)];
    case 'integer':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1.5;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return pick(Object.values(context.ids).flat(), random) ?? '01900000-0000-7000-8000-000000000001';
      if (schema.format === 'date-time') return new Date().toISOString();
      return 'Fuzz';
    default:
      return null;
  }
}

function pick<T>(values: readonly T[], random: () => number): T {
  return values[Math.floor(random() * values.length)];
}

function nested(depth: number): unknown {
  let value: unknown = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** One hostile value of any kind: for a field, a query parameter, or a whole body. */
function hostileValue(random: () => number): { value: unknown; label: string } {
  const kinds: Array<() => { value: unknown; label: string }> = [
    () => ({ value: pick(HOSTILE_STRINGS, random), label: 'hostile string' }),
    () => ({ value: pick(HOSTILE_NUMBERS, random), label: 'extreme number' }),
    () => ({ value: pick(HOSTILE_DATES, random), label: 'extreme date' }),
    () => ({ value: nested(pick([40, 500], random)), label: 'deep nesting' }),
    () => ({ value: pick([null, true, false, {}, [], [null], [[]], { a: { b: { c: null } } }], random), label: 'wrong type' }),
    () => ({ value: pick(GARBAGE_IDS, random), label: 'garbage id' }),
    () => ({ value: Array.from({ length: 10_000 }, (_, i) => i), label: 'huge array' }),
  ];
  return pick(kinds, random)();
}

function encodePathValue(value: string): string {
  // Percent sequences in the garbage list are sent as they are (they are the point); the rest is encoded.
  return /%[0-9A-F]{2}/i.test(value) ? value : encodeURIComponent(value);
}

function queryValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '';
}

/** Whole-body variants that do not depend on the schema. */
function rawBodyVariant(random: () => number, base: unknown): { body: string; contentType: string; label: string } {
  const json = 'application/json';
  const variants: Array<() => { body: string; contentType: string; label: string }> = [
    () => ({ body: pick(['{', '[', 'nul', '{"a":}', '{"a":1,}', '\u0000', '"\\ud800"', '{"a":"\\u0000"}', '1e999999', ''], random), contentType: json, label: 'invalid JSON' }),
    () => ({ body: `{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}`, contentType: json, label: 'prototype keys' }),
    () => {
      const text = JSON.stringify(base ?? {});
      return { body: text.length > 2 ? `${text.slice(0, -1)},${text.slice(1)}` : '{"a":1,"a":2}', contentType: json, label: 'duplicate keys' };
    },
    () => ({ body: JSON.stringify(base ?? {}), contentType: pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=utf-16', 'application/json; charset=bogus'], random), label: 'wrong content type' }),
    () => ({ body: JSON.stringify(pick([[], 'string', 42, null, true, nested(50)], random)), contentType: json, label: 'wrong top-level type' }),
    () => ({ body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, contentType: json, label: 'deep nesting (100,000)' }),
  ];
  return pick(variants, random)();
}

/** `count` hostile requests spread over every operation of `document`. */
export function* hostileRequests(document: OpenApiDocument, context: FuzzContext, count: number, seed = 1): Generator<HostileRequest> {
  const random = prng(seed);
  const operations: Array<{ method: string; template: string; operation: Operation }> = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) operations.push({ method: method.toUpperCase(), template, operation });
    }
  }
  for (let n = 0; n < count; n++) {
    const { method, template, operation } = operations[n % operations.length];
    const headers: Record<string, string> = { Authorization: context.authorization, 'X-Service-Account-ID': context.accountId, 'Idempotency-Key': `fuzz-${seed}-${n}-key` };
    const parameters = operation.parameters ?? [];
    const hostileTarget = Math.floor(random() * 5); // 0 path, 1 query, 2 body, 3 headers, 4 all well-formed but one odd field of the body
    const labels: string[] = [];

    let path = template;
    for (const parameter of parameters.filter((p) => p.in === 'path')) {
      const real = context.ids[parameter.name] ?? [];
      const value = hostileTarget === 0 || real.length === 0 ? pick(GARBAGE_IDS, random) : pick(real, random);
      if (hostileTarget === 0) labels.push(`path ${parameter.name}=${value.slice(0, 40)}`);
      path = path.replace(`{${parameter.name}}`, encodePathValue(value));
    }

    const query = new URLSearchParams();
    for (const parameter of parameters.filter((p) => p.in === 'query')) {
      if (hostileTarget !== 1 && random() < 0.7) continue;
      const name = parameter.name;
      const value =
        name === 'cursor' ? pick(GARBAGE_CURSORS, random) : parameter.schema?.format === 'date-time' || /(^|_)(from|to|at|since|until)$/.test(name) ? pick(HOSTILE_DATES, random) : queryValue(hostileValue(random).value);
      query.append(name, value.slice(0, 20_000));
      if (random() < 0.2) query.append(name, 'second-value');
      labels.push(`query ${name}`);
    }
    if (hostileTarget === 1 && random() < 0.3) {
      query.append('unknown[nested][deep]', 'x');
      query.append('__proto__[polluted]', 'true');
    }

    const jsonSchema = operation.requestBody?.content?.['application/json']?.schema;
    const formSchema = operation.requestBody?.content?.['application/x-www-form-urlencoded']?.schema;
    let body: string | undefined;
    if (jsonSchema) {
      const known = context.validBodies?.[`${method} ${template}`];
      const base = known ? structuredClone(known) : (sample(document, jsonSchema, context, random) as Record<string, unknown> | null);
      if (hostileTarget === 2 && random() < 0.5) {
        const raw = rawBodyVariant(random, base);
        headers['Content-Type'] = raw.contentType;
        body = raw.body;
        labels.push(`body: ${raw.label}`);
      } else {
        const fields = base && typeof base === 'object' ? Object.keys(base) : [];
        const mutated: Record<string, unknown> = { ...(base ?? {}) };
        const field = fields.length > 0 && random() < 0.85 ? pick(fields, random) : 'unknown_field';
        const textual = typeof mutated[field] === 'string' && random() < 0.5;
        const hostile = textual ? { value: `${String(mutated[field])}${pick(['\u0000', '\ud800', '\udfff', HUGE, '\u0000\u0000'], random)}`, label: 'unstorable text' } : hostileValue(random);
        mutated[field] = hostile.value;
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(mutated);
        labels.push(`body ${field}: ${hostile.label}`);
      }
    } else if (formSchema) {
      headers['Content-Type'] = random() < 0.8 ? 'application/x-www-form-urlencoded' : 'application/json';
      const form = new URLSearchParams();
      for (const name of ['grant_type', 'client_id', 'client_secret', 'scope']) form.append(name, queryValue(hostileValue(random).value).slice(0, 5000));
      body = form.toString();
      labels.push('form body');
    } else if (random() < 0.2 && method !== 'GET' && method !== 'HEAD') {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(hostileValue(random).value);
      labels.push('unexpected body');
    }

    if (hostileTarget === 3) {
      const which = Math.floor(random() * 3);
      if (which === 0) headers['Idempotency-Key'] = pick(ODD_KEYS, random);
      if (which === 1) headers['X-Service-Account-ID'] = pick(ODD_ACCOUNTS, random);
      if (which === 2) headers.Authorization = pick(ODD_AUTH, random);
      labels.push(`header ${['Idempotency-Key', 'X-Service-Account-ID', 'Authorization'][which]}`);
    }
    // Header values must be byte strings: anything else would fail in the client, not the service.
    for (const [name, value] of Object.entries(headers)) headers[name] = value.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

    const search = query.toString();
    yield { method, path: `${path}${search ? `?${search}` : ''}`, headers, body, variant: `${method} ${template}: ${labels.join(', ') || 'well-formed'}` };
  }
}

export interface FuzzFailure {
  request: string;
  outcome: string;
}

/**
 * Sends the requests to `baseUrl` with bounded concurrency; a failure is a 5xx answer or a
 * dropped connection (no answer at all). Returns the failures and how many requests were sent.
 */
export async function runFuzz(baseUrl: string, requests: Iterable<HostileRequest>, concurrency = 8): Promise<{ sent: number; failures: FuzzFailure[]; statuses: Record<number, number> }> {
  const iterator = requests[Symbol.iterator]();
  const failures: FuzzFailure[] = [];
  const statuses: Record<number, number> = {};
  let sent = 0;
  const worker = async (): Promise<void> => {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      const request = next.value;
      sent++;
      try {
        const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body, redirect: 'manual' });
        await response.arrayBuffer();
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        if (response.status >= 500) failures.push({ request: request.variant, outcome: `HTTP ${response.status}` });
      } catch (error) {
        failures.push({ request: request.variant, outcome: `no answer: ${error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}` : String(error)}` });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sent, failures, statuses };
}
