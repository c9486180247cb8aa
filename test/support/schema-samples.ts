/**
 * Bodies generated from the served OpenAPI document: valid samples (every rule the schema states
 * honoured, references filled with records of the caller's tenant) and variants that break one
 * rule of one top-level field. Used by the property test of create/replace operations.
 */

export type Schema = Record<string, unknown>;
export type Json = Record<string, unknown>;

export interface SampleContext {
  schemas: Record<string, Schema>;
  random: () => number;
  /** A record id of the tenant for a `*_id` field (by field name), or undefined. */
  reference(field: string): string | undefined;
  /** Fresh eligible device ids (each used once). */
  devices(count: number): string[];
}

export function resolve(schemas: Record<string, Schema>, schema: Schema | undefined): Schema {
  if (!schema) return {};
  const ref = schema.$ref;
  if (typeof ref === 'string') return resolve(schemas, schemas[ref.split('/').pop() as string]);
  const allOf = schema.allOf as Schema[] | undefined;
  if (Array.isArray(allOf) && allOf.length === 1 && !schema.properties) return { ...resolve(schemas, allOf[0]), ...schema, allOf: undefined };
  return schema;
}

const pick = <T>(values: readonly T[], random: () => number): T => values[Math.floor(random() * values.length)];

/** Valid values for patterns whose rule goes beyond the pattern (check digits) or that are hard to generate. */
const PATTERN_SAMPLES: Record<string, string> = {
  '^[0-9]{9}$': '271000123',
  '^[0-9]{7}$': '9074729',
  '^[A-Z]{2}$': 'TR',
  '^\\+[1-9][0-9]{6,14}$': '+905321234567',
  '^[A-Z]{2,4}$': 'MAEU',
  '^[A-Z0-9]{2}$': 'TK',
};

let counter = 0;
/** Timestamps in generation order, so that "later than" rules between fields hold. */
const nextTime = (): string => new Date(Date.now() + 2 * 86_400_000 + ++counter * 3_600_000).toISOString();

export function sample(context: SampleContext, raw: Schema | undefined, field = '', depth = 0): unknown {
  const schema = resolve(context.schemas, raw);
  const oneOf = schema.oneOf as Schema[] | undefined;
  if (Array.isArray(oneOf) && !schema.properties) return sample(context, oneOf[0], field, depth + 1);
  if (Array.isArray(schema.enum)) return pick((schema.enum as unknown[]).filter((v) => v !== null), context.random);
  switch (schema.type) {
    case 'object':
      return sampleObject(context, schema, depth);
    case 'array': {
      if (field === 'device_ids') return context.devices(1);
      const length = Math.max(Number(schema.minItems ?? 0), schema.minItems === undefined && context.random() < 0.5 ? 0 : 1);
      const items = Array.from({ length: Math.min(length, Number(schema.maxItems ?? 3)) }, () => sample(context, schema.items as Schema, field, depth + 1));
      return schema.uniqueItems ? [...new Map(items.map((item) => [JSON.stringify(item), item])).values()] : items;
    }
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 100;
      // "_min" fields take the lower quarter and "_max" the upper one: min < max wherever both exist.
      const at = /_min$/.test(field) ? 0.25 : /_max$/.test(field) ? 0.75 : 0.5;
      const value = min + (max - min) * at;
      return schema.type === 'integer' ? Math.round(value) : Math.round(value * 100) / 100;
    }
    case 'boolean':
      return context.random() < 0.5;
    case 'string': {
      if (schema.format === 'uuid') return context.reference(field) ?? '01900000-0000-7000-8000-000000000000';
      if (schema.format === 'date-time') return nextTime();
      if (schema.format === 'email') return `sample.${++counter}@example.com`;
      if (typeof schema.pattern === 'string') {
        const known = PATTERN_SAMPLES[schema.pattern];
        if (!known) throw new Error(`no sample for pattern ${schema.pattern} (${field})`);
        return known;
      }
      const text = `Sample ${field} ${++counter}`;
      return text.slice(0, Number(schema.maxLength ?? 200)).padEnd(Number(schema.minLength ?? 0), 'x');
    }
    default:
      return null;
  }
}

function sampleObject(context: SampleContext, schema: Schema, depth: number): Json {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const value: Json = {};
  for (const [name, property] of Object.entries(properties)) {
    if (property.readOnly) continue;
    if (required.has(name) || (depth < 3 && context.random() < 0.6)) value[name] = sample(context, property, name, depth + 1);
  }
  satisfyConditions(context, schema, value, depth);
  return value;
}

/** Whether `value` meets an alternative of an anyOf/oneOf: its `required`, and the enums of its properties. */
export function meets(alternative: Schema, value: Json): boolean {
  for (const name of (alternative.required ?? []) as string[]) if (value[name] === undefined || value[name] === null) return false;
  for (const [name, rule] of Object.entries((alternative.properties ?? {}) as Record<string, Schema>)) {
    if (value[name] === undefined) continue;
    if (Array.isArray(rule.enum) && !rule.enum.includes(value[name])) return false;
    if (value[name] === null && rule.nullable !== true) return false;
  }
  return true;
}

/** Makes the sample meet the conditional rules (anyOf, oneOf, allOf of them) the schema states. */
function satisfyConditions(context: SampleContext, schema: Schema, value: Json, depth: number): void {
  const groups: Array<{ kind: 'anyOf' | 'oneOf'; alternatives: Schema[] }> = [];
  for (const kind of ['anyOf', 'oneOf'] as const) if (Array.isArray(schema[kind])) groups.push({ kind, alternatives: schema[kind] as Schema[] });
  for (const part of (schema.allOf ?? []) as Schema[]) for (const kind of ['anyOf', 'oneOf'] as const) if (Array.isArray(part[kind])) groups.push({ kind, alternatives: part[kind] as Schema[] });
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const { kind, alternatives } of groups) {
    const met = alternatives.filter((alternative) => meets(alternative, value));
    if (kind === 'anyOf' && met.length > 0) continue;
    if (kind === 'oneOf' && met.length === 1) continue;
    // Clearing a field never breaks another rule; changing a shared one (a carrier's mode) could.
    const clearing = alternatives.find((alternative) => Object.values((alternative.properties ?? {}) as Record<string, Schema>).some((rule) => Array.isArray(rule.enum) && rule.enum.includes(null)));
    const chosen = kind === 'anyOf' && clearing ? clearing : pick(alternatives, context.random);
    // oneOf: drop what the other alternatives require, then satisfy the chosen one.
    if (kind === 'oneOf') for (const other of alternatives) if (other !== chosen) for (const name of (other.required ?? []) as string[]) delete value[name];
    for (const name of (chosen.required ?? []) as string[]) if (value[name] === undefined || value[name] === null) value[name] = sample(context, properties[name], name, depth + 1);
    for (const [name, rule] of Object.entries((chosen.properties ?? {}) as Record<string, Schema>)) {
      if (Array.isArray(rule.enum) && value[name] !== undefined && !rule.enum.includes(value[name])) {
        if (rule.enum.includes(null)) delete value[name];
        else value[name] = rule.enum[0];
      }
    }
  }
}

export interface BrokenBody {
  body: Json;
  field: string;
  rule: string;
}

/** Variants of a valid body, each breaking one rule of one top-level field the schema states. */
export function breakOneRule(context: SampleContext, raw: Schema, valid: Json): BrokenBody[] {
  const schema = resolve(context.schemas, raw);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const broken: BrokenBody[] = [{ body: { ...valid, unexpected_field: 1 }, field: 'unexpected_field', rule: 'additionalProperties' }];
  for (const name of (schema.required ?? []) as string[]) {
    const body = { ...valid };
    delete body[name];
    // A required field whose absence an anyOf alternative covers is not a rule of its own.
    if (!Array.isArray(schema.anyOf) || !(schema.anyOf as Schema[]).some((alternative) => meets(alternative, body))) broken.push({ body, field: name, rule: 'required' });
  }
  for (const [name, property] of Object.entries(properties)) {
    const rule = resolve(context.schemas, property);
    const type = rule.type ?? (rule.oneOf ? 'object' : undefined);
    const wrong = type === 'string' ? 12345 : type === 'array' ? 'not-an-array' : type === 'object' ? 'not-an-object' : 'not-a-number';
    if (type !== undefined) broken.push({ body: { ...valid, [name]: wrong }, field: name, rule: 'type' });
    if (typeof rule.maximum === 'number') broken.push({ body: { ...valid, [name]: rule.maximum + 1 }, field: name, rule: 'maximum' });
    if (typeof rule.minimum === 'number') broken.push({ body: { ...valid, [name]: rule.minimum - 1 }, field: name, rule: 'minimum' });
    if (typeof rule.maxLength === 'number' && rule.format !== 'uuid') broken.push({ body: { ...valid, [name]: 'x'.repeat(rule.maxLength + 1) }, field: name, rule: 'maxLength' });
    if (typeof rule.pattern === 'string') broken.push({ body: { ...valid, [name]: '!!' }, field: name, rule: 'pattern' });
    if (Array.isArray(rule.enum)) broken.push({ body: { ...valid, [name]: 'not-in-the-enum' }, field: name, rule: 'enum' });
    if (rule.format === 'uuid') broken.push({ body: { ...valid, [name]: 'not-a-uuid' }, field: name, rule: 'format' });
    if (rule.format === 'date-time') broken.push({ body: { ...valid, [name]: 'not-a-date' }, field: name, rule: 'format' });
    if (rule.format === 'email') broken.push({ body: { ...valid, [name]: 'not-an-email' }, field: name, rule: 'format' });
    if (typeof rule.maxItems === 'number' && rule.type === 'array') {
      broken.push({ body: { ...valid, [name]: Array.from({ length: rule.maxItems + 1 }, (_, i) => (rule.items && resolve(context.schemas, rule.items as Schema).format === 'email' ? `many.${i}@example.com` : sample(context, rule.items as Schema, name))) }, field: name, rule: 'maxItems' });
    }
    if (rule.nullable !== true && !((schema.required ?? []) as string[]).includes(name) && valid[name] !== undefined) broken.push({ body: { ...valid, [name]: null }, field: name, rule: 'not nullable' });
  }
  return broken;
}
