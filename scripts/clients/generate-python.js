#!/usr/bin/env node
'use strict';
// `npm run clients:generate:python`: turns clients/openapi.json (the committed snapshot of the
// document the api serves at /api/public/v1/schema/) into clients/python/coldchain_client/_generated.py:
// a TypedDict per schema, the operation table, and one resource class per group with a typed
// method for every operation. `--stdout` prints the result instead of writing it (the drift check
// in test/clients/python-generated.spec.ts compares that with the committed file).
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const SNAPSHOT = path.join(ROOT, 'clients', 'openapi.json');
const OUTPUT = path.join(ROOT, 'clients', 'python', 'coldchain_client', '_generated.py');
const BASE_PATH = '/api/public/v1';

/** Where an operation lives on the client when its controller name is not the group. */
const PLACEMENT = {
  ApiIndexController_index: ['meta', 'index'],
  SchemaController_serve: ['meta', 'schema'],
  TokenController_token: ['oauth', 'token'],
  DevicesController_status: ['devices', 'get_status'],
  DevicesController_maintenance: ['devices', 'list_maintenance'],
  DeviceAlarmsController_list: ['devices', 'list_alarms'],
  TelemetryController_list: ['telemetry', 'list'],
  ShareController_get: ['shipments', 'get_share'],
  ShareController_put: ['shipments', 'share'],
  ShareController_revoke: ['shipments', 'revoke_share'],
  TrackingController_list: ['shipments', 'list_tracking'],
};
/** Default method names for controller actions. */
const ACTIONS = { remove: 'delete' };
/** Resource class order on the client (groups not named here follow in document order). */
const GROUP_ORDER = ['accounts', 'locations', 'carriers', 'receivers', 'alert_presets', 'shipment_templates', 'devices', 'telemetry', 'shipments', 'alarms', 'reports', 'users', 'roles', 'invitations', 'meta', 'oauth'];

const PY_KEYWORDS = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except',
  'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try',
  'while', 'with', 'yield',
]);
/** Names the generated methods use for their own arguments (`account_id` only where the operation takes the account header). */
const RESERVED_ARGS = new Set(['self', 'body', 'destination', 'account_id', 'idempotency_key', 'timeout']);
const RESERVED_WITHOUT_ACCOUNT = new Set([...RESERVED_ARGS].filter((name) => name !== 'account_id'));

const snake = (name) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
const pascal = (name) => snake(name).split('_').filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join('');
const identifier = (name, reserved = RESERVED_ARGS) => {
  let id = snake(name);
  if (/^[0-9]/.test(id)) id = `_${id}`;
  return PY_KEYWORDS.has(id) || reserved.has(id) ? `${id}_` : id;
};
const pyString = (value) => JSON.stringify(value);
const pyTuple = (values) => (values.length === 1 ? `(${pyString(values[0])},)` : `(${values.map(pyString).join(', ')})`);
const oneLine = (text) => String(text ?? '').replace(/\s+/g, ' ').trim();
/** Text safe inside a triple-quoted docstring. */
const docText = (text) => oneLine(text).replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
const refName = (ref) => ref.split('/').pop();
/** The Python name of a schema: without the server's `Dto` suffix, as in the Node and .NET clients (ShipmentDto → Shipment). */
const typeName = (schemaName) => schemaName.replace(/Dto$/, '');

/**
 * Lists whose items are `anyOf` a point and a bucket: typed overloads, so that the call with
 * `bucket=` returns pages of buckets and the call without it pages of points.
 */
/** Schema names the package exports from a hand-written module instead. */
const HAND_WRITTEN = new Set(['FieldError']);

const BUCKET_VARIANTS = {
  TelemetryController_list: { point: 'TelemetryPointDto', bucket: 'TelemetryBucketDto' },
  TrackingController_list: { point: 'TrackingPointDto', bucket: 'TelemetryBucketDto' },
};

function pyLiteral(values) {
  const parts = values.map((v) => (v === null ? 'None' : pyString(v)));
  return `Literal[${parts.join(', ')}]`;
}

/** The Python annotation of a schema (annotations are never evaluated: `from __future__ import annotations`). */
function pyType(schema) {
  if (!schema) return 'Any';
  let type;
  if (schema.$ref) type = typeName(refName(schema.$ref));
  else if (schema.allOf && schema.allOf.length === 1) type = pyType(schema.allOf[0]);
  else if ((schema.oneOf || schema.anyOf) && !schema.properties) {
    const alternatives = [...new Set((schema.oneOf || schema.anyOf).map(pyType))];
    type = alternatives.length === 1 ? alternatives[0] : `Union[${alternatives.join(', ')}]`;
  } else if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter((v) => v !== null);
    type = values.length ? pyLiteral(values) : 'None';
  } else if (schema.type === 'string') type = schema.format === 'binary' ? 'bytes' : 'str';
  else if (schema.type === 'integer') type = 'int';
  else if (schema.type === 'number') type = 'float';
  else if (schema.type === 'boolean') type = 'bool';
  else if (schema.type === 'array') type = `List[${pyType(schema.items)}]`;
  else if (schema.type === 'object' || schema.properties || schema.additionalProperties) {
    const extra = schema.additionalProperties;
    type = extra && typeof extra === 'object' && !schema.properties ? `Dict[str, ${pyType(extra)}]` : 'Dict[str, Any]';
  } else type = 'Any';
  const nullable = schema.nullable === true || (Array.isArray(schema.enum) && schema.enum.includes(null));
  return nullable && type !== 'Any' && type !== 'None' ? `Optional[${type}]` : type;
}

function fieldComment(schema) {
  const parts = [];
  if (schema.description) parts.push(oneLine(schema.description));
  if (schema.format && schema.format !== 'binary') parts.push(`Format: ${schema.format}.`);
  return parts.join(' ');
}

/** One TypedDict (two when it mixes required and optional keys, as Python 3.9 has no NotRequired). */
function emitSchema(schemaName, schema, out) {
  const name = typeName(schemaName);
  const properties = Object.entries(schema.properties || {});
  if (schema.type !== 'object' && !schema.properties) {
    out.push(`${name} = ${pyType(schema)}`);
    if (schema.description) out.push(`"""${docText(schema.description)}"""`);
    out.push('', '');
    return;
  }
  const required = new Set(schema.required || []);
  const invalid = properties.some(([key]) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || PY_KEYWORDS.has(key));
  const docLines = [];
  if (schema.description) docLines.push(docText(schema.description));
  const constraints = schema.oneOf || schema.anyOf;
  if (constraints && schema.properties) {
    const alternatives = constraints.map((c) => (c.required ? c.required.join(' + ') : 'its other fields')).join(' | ');
    docLines.push(`The service also requires one of: ${alternatives}.`);
  }
  if (schema.additionalProperties === false) docLines.push('Unknown keys are rejected by the service.');
  const doc = docLines.length ? `"""${docLines.join(' ')}"""` : null;
  if (invalid) {
    // Functional syntax: keys that are not Python identifiers.
    const entries = properties.map(([key, value]) => `${pyString(key)}: ${pyType(value)}`);
    out.push(`${name} = TypedDict(${pyString(name)}, {${entries.join(', ')}}, total=False)`);
    out.push('', '');
    return;
  }
  const lines = (entries) => {
    const body = [];
    for (const [key, value] of entries) {
      const comment = fieldComment(value);
      if (comment) body.push(`    #: ${comment}`);
      body.push(`    ${key}: ${pyType(value)}`);
    }
    return body;
  };
  const requiredEntries = properties.filter(([key]) => required.has(key));
  const optionalEntries = properties.filter(([key]) => !required.has(key));
  if (requiredEntries.length && optionalEntries.length) {
    out.push(`class _${name}Required(TypedDict):`);
    out.push(...lines(requiredEntries), '', '');
    out.push(`class ${name}(_${name}Required, total=False):`);
    if (doc) out.push(`    ${doc}`, '');
    out.push(...lines(optionalEntries));
  } else {
    out.push(`class ${name}(TypedDict${requiredEntries.length || !properties.length ? '' : ', total=False'}):`);
    if (doc) out.push(`    ${doc}`);
    if (doc && properties.length) out.push('');
    out.push(...lines(properties));
    if (!doc && !properties.length) out.push('    pass');
  }
  out.push('', '');
}

function jsonSchemaOf(response) {
  const content = response && response.content;
  if (!content) return undefined;
  const json = content['application/json'];
  return json ? json.schema || {} : undefined;
}

/** Reads one operation into what the client needs. */
function describeOperation(docPath, method, op, components) {
  const [controller, action] = op.operationId.split('_');
  const [group, name] = PLACEMENT[op.operationId] || [snake(controller.replace(/Controller$/, '')), ACTIONS[action] || snake(action)];
  const params = (op.parameters || []).map((p) => (p.$ref ? components.parameters[refName(p.$ref)] : p));
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const headers = params.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
  const reserved = headers.includes('x-service-account-id') ? RESERVED_ARGS : RESERVED_WITHOUT_ACCOUNT;
  const ordered = [...docPath.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const pathOrdered = ordered.map((n) => pathParams.find((p) => p.name === n) || { name: n, schema: { type: 'string' } });
  let body = null;
  let bodyType = null;
  if (op.requestBody) {
    const content = op.requestBody.content || {};
    const media = content['application/json'] ? 'application/json' : Object.keys(content)[0];
    body = media === 'application/json' ? 'json' : media === 'application/x-www-form-urlencoded' ? 'form' : 'raw';
    bodyType = pyType((content[media] || {}).schema);
  }
  const successCode = Object.keys(op.responses || {}).find((code) => /^2/.test(code));
  const success = op.responses[successCode] || {};
  const successSchema = jsonSchemaOf(success);
  let response;
  let returns;
  let itemType = null;
  const mediaTypes = Object.keys(success.content || {});
  if (op.operationId === 'TokenController_token') {
    response = 'token';
    returns = pyType(successSchema);
  } else if (successCode === '204' || (!success.content && successCode !== '200')) {
    response = 'empty';
    returns = 'None';
  } else if (mediaTypes.length && !successSchema) {
    response = 'binary';
    returns = 'DownloadResult';
  } else if (successSchema && successSchema.properties && successSchema.properties.data && successSchema.properties.links) {
    response = 'page';
    itemType = pyType(successSchema.properties.data.items);
    returns = `Page[${itemType}]`;
  } else if (successSchema) {
    response = 'json';
    returns = pyType(successSchema);
  } else {
    response = 'any';
    returns = 'Any';
  }
  const scopes = ((op.security || []).find((s) => s.oauth2) || {}).oauth2 || [];
  return {
    id: op.operationId,
    method: method.toUpperCase(),
    path: docPath.startsWith(BASE_PATH) ? docPath.slice(BASE_PATH.length) || '/' : docPath,
    group,
    name,
    summary: op.summary || '',
    pathParams: pathOrdered.map((p) => ({ name: p.name, arg: identifier(p.name, reserved), type: pyType(p.schema) })),
    queryParams: queryParams.map((p) => {
      let type = pyType(p.schema);
      const values = p.schema && p.schema.enum;
      if (Array.isArray(values) && values.length === 2 && values.includes('true') && values.includes('false')) {
        throw new Error(`${op.operationId}: query parameter ${p.name} is a string enum of true/false; declare it type: boolean in the api's DTO`);
      }
      if (p.schema && p.schema.format === 'date-time') type = 'Union[str, datetime]';
      return { name: p.name, arg: identifier(p.name, reserved), type };
    }),
    accountHeader: headers.includes('x-service-account-id'),
    idempotencyKey: headers.includes('idempotency-key'),
    body,
    bodyRequired: Boolean(op.requestBody && op.requestBody.required),
    bodyType,
    response,
    returns,
    itemType,
    binaryTypes: response === 'binary' ? mediaTypes : [],
    scopes,
    public: Array.isArray(op.security) && op.security.length === 0,
  };
}

function emitOperationTable(operations, out) {
  out.push('OPERATIONS: Dict[str, Operation] = {');
  for (const op of operations) {
    out.push(`    ${pyString(op.id)}: Operation(`);
    out.push(`        id=${pyString(op.id)},`);
    out.push(`        method=${pyString(op.method)},`);
    out.push(`        path=${pyString(op.path)},`);
    out.push(`        resource=${pyString(op.group)},`);
    out.push(`        name=${pyString(op.name)},`);
    out.push(`        path_params=${pyTuple(op.pathParams.map((p) => p.name))},`);
    out.push(`        query_params=${pyTuple(op.queryParams.map((p) => p.name))},`);
    out.push(`        account_header=${op.accountHeader ? 'True' : 'False'},`);
    out.push(`        idempotency_key=${op.idempotencyKey ? 'True' : 'False'},`);
    out.push(`        body=${op.body ? pyString(op.body) : 'None'},`);
    out.push(`        response=${pyString(op.response)},`);
    out.push(`        scopes=${pyTuple(op.scopes)},`);
    out.push(`        authenticated=${op.public ? 'False' : 'True'},`);
    out.push('    ),');
  }
  out.push('}', '"""Every operation of the document, by operationId."""', '', '');
}

function methodSignature(op, extra, returns, name) {
  const args = ['self'];
  for (const p of op.pathParams) args.push(`${p.arg}: ${p.type}`);
  if (op.body && op.response !== 'token') args.push(op.bodyRequired ? `body: ${op.bodyType}` : `body: Optional[${op.bodyType}] = None`);
  if (op.response === 'binary') args.push('destination: Destination');
  const keywords = [];
  for (const q of extra.query) {
    // An overload fixes the type of one parameter (`bucket` given, or left out).
    const fixed = extra.fixed && extra.fixed[q.name];
    keywords.push(fixed ? `${q.arg}: ${fixed}` : `${q.arg}: Optional[${q.type}] = None`);
  }
  if (op.accountHeader) keywords.push('account_id: Optional[str] = None');
  if (op.idempotencyKey) keywords.push('idempotency_key: Optional[str] = None');
  keywords.push('timeout: Optional[float] = None');
  const all = keywords.length ? [...args, '*', ...keywords] : args;
  return [`    def ${name}(`, ...all.map((a) => `        ${a},`), `    ) -> ${returns}:`];
}

function callArguments(op, query) {
  const parts = [`OPERATIONS[${pyString(op.id)}]`];
  if (op.pathParams.length) parts.push(`path={${op.pathParams.map((p) => `${pyString(p.name)}: ${p.arg}`).join(', ')}}`);
  if (query.length) parts.push(`query={${query.map((q) => `${pyString(q.name)}: ${q.arg}`).join(', ')}}`);
  if (op.body && op.response !== 'token') parts.push('body=body');
  if (op.response === 'binary') parts.push('destination=destination');
  if (op.accountHeader) parts.push('account_id=account_id');
  if (op.idempotencyKey) parts.push('idempotency_key=idempotency_key');
  parts.push('timeout=timeout');
  return parts.join(', ');
}

function emitMethod(op, out) {
  const doc = [`${docText(op.summary) || op.id}`, '', `\`\`${op.method} ${op.path}\`\`${op.scopes.length ? ` (scopes: ${op.scopes.join(', ')})` : ''}; operation \`\`${op.id}\`\`.`];
  if (op.idempotencyKey) doc.push('An ``Idempotency-Key`` is generated unless given, and reused on the client\'s own retries.');
  if (op.response === 'page') doc.push('Returns one page; ``.auto_paging_iter()`` (or the ``iter_*`` twin of this method) follows ``links.next``.');
  if (op.response === 'binary') doc.push(`Streams the file (${op.binaryTypes.join(', ')}) to \`\`destination\`\` (a path or a writable binary stream).`);
  if (op.response === 'token') doc.push('Exchanges the client\'s credentials for a new access token (the client does this by itself; the token is cached).');
  const returns = op.response === 'token' ? op.returns : op.returns;
  const variants = BUCKET_VARIANTS[op.id];
  const bucketParam = variants && op.queryParams.find((q) => q.name === 'bucket');
  /** The two typed overloads of a point/bucket list (then the implementation, typed with the union). */
  const overloads = (query, wrap, name) => {
    if (!bucketParam) return;
    const point = typeName(variants.point);
    const bucket = typeName(variants.bucket);
    out.push('    @overload');
    out.push(...methodSignature(op, { query, fixed: { bucket: 'None = None' } }, wrap(point), name), '        ...', '');
    out.push('    @overload');
    out.push(...methodSignature(op, { query: [...query.filter((q) => q.name !== 'bucket'), bucketParam], fixed: { bucket: bucketParam.type } }, wrap(bucket), name), '        ...', '');
  };
  overloads(op.queryParams, (item) => `Page[${item}]`, op.name);
  // The implementation of overloads is typed loosely (each overload states what it returns).
  out.push(...methodSignature(op, { query: op.queryParams }, bucketParam ? 'Page[Any]' : returns, op.name));
  out.push(`        """${doc.join('\n\n        ').replace(/\n\n {8}\n\n/g, '\n\n')}"""`);
  const call = callArguments(op, op.queryParams);
  const helper = { page: '_page', json: '_json', empty: '_empty', binary: '_download', token: '_token', any: '_any' }[op.response];
  // JSON answers (the token's too) are parsed at run time: cast to the documented type for type
  // checkers (mypy --strict); the resources know the client only as _base.Caller.
  const result = `self._client.${helper}(${call})`;
  out.push(`        return ${(op.response === 'json' || op.response === 'token') && returns !== 'Any' ? `cast(${pyString(returns)}, ${result})` : result}`, '');
  if (op.response === 'page') {
    const iterName = op.name === 'list' ? 'iter_all' : op.name.replace(/^list_/, 'iter_');
    const query = op.queryParams.filter((q) => q.name !== 'cursor');
    overloads(query, (item) => `Iterator[${item}]`, iterName);
    out.push(...methodSignature(op, { query }, bucketParam ? 'Iterator[Any]' : `Iterator[${op.itemType}]`, iterName));
    out.push(`        """Every record of \`\`${op.name}\`\`, page after page (follows \`\`links.next\`\`)."""`);
    const queryWithCursor = [...query];
    out.push(`        return self._client._iter(${callArguments(op, queryWithCursor)})`, '');
  }
}

function generate(document) {
  const components = document.components || {};
  const schemas = components.schemas || {};
  const operations = [];
  for (const [docPath, item] of Object.entries(document.paths || {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (op && op.operationId) operations.push(describeOperation(docPath, method, op, components));
    }
  }
  const seen = new Map();
  for (const op of operations) {
    const key = `${op.group}.${op.name}`;
    if (seen.has(key)) throw new Error(`two operations map to ${key}: ${seen.get(key)} and ${op.id} (add a PLACEMENT entry)`);
    seen.set(key, op.id);
  }
  const groups = [...new Set([...GROUP_ORDER.filter((g) => operations.some((o) => o.group === g)), ...operations.map((o) => o.group)])];

  const out = [];
  out.push('# Generated by scripts/clients/generate-python.js from clients/openapi.json. Do not edit by hand:');
  out.push('# run `npm run clients:generate:python` (test/clients/python-generated.spec.ts fails when this file is stale).');
  out.push(`"""Types and operations of ${docText(document.info && document.info.title)} ${docText(document.info && document.info.version)} (OpenAPI ${document.openapi}).`);
  out.push('');
  out.push('One ``TypedDict`` per schema of the document, the table of its operations, and one resource class');
  out.push('per group with a typed method for each operation. Import from ``coldchain_client``, not from here.');
  out.push('"""');
  out.push('from __future__ import annotations', '');
  out.push('from datetime import datetime');
  out.push('from typing import Any, Dict, Iterator, List, Literal, Optional, TypedDict, Union, cast, overload', '');
  out.push('from ._base import Destination, DownloadResult, Operation, Page, Resource', '');
  out.push(`API_TITLE = ${pyString((document.info && document.info.title) || '')}`);
  out.push(`API_VERSION = ${pyString((document.info && document.info.version) || '')}`);
  out.push(`BASE_PATH = ${pyString(BASE_PATH)}`);
  out.push(`SCOPES = ${pyTuple(Object.keys(((((components.securitySchemes || {}).oauth2 || {}).flows || {}).clientCredentials || {}).scopes || {}))}`);
  out.push('', '');
  out.push('# ---------------------------------------------------------------- schemas', '');
  for (const [name, schema] of Object.entries(schemas)) emitSchema(name, schema, out);
  out.push('# ---------------------------------------------------------------- operations', '');
  emitOperationTable(operations, out);
  out.push('# ---------------------------------------------------------------- resources', '');
  for (const group of groups) {
    const className = `${pascal(group)}Resource`;
    const ops = operations.filter((o) => o.group === group);
    out.push(`class ${className}(Resource):`);
    out.push(`    """${ops.map((o) => `\`\`${o.method} ${o.path}\`\``).join(', ')}."""`, '');
    for (const op of ops) emitMethod(op, out);
    out.push('');
  }
  out.push('class GeneratedResources:');
  out.push('    """The resource groups of the client (``client.devices``, ``client.shipments``, ...)."""', '');
  for (const group of groups) out.push(`    ${group}: ${pascal(group)}Resource`);
  out.push('');
  out.push('    def _bind_resources(self) -> None:');
  for (const group of groups) out.push(`        self.${group} = ${pascal(group)}Resource(self)  # type: ignore[arg-type]`);
  out.push('', '');
  out.push(`RESOURCES = ${pyTuple(groups)}`);
  out.push('"""Attribute names of the resource groups on the client."""', '', '');
  out.push('__all__ = [');
  // FieldError is exported by coldchain_client.errors (a dict with the same keys and properties).
  for (const name of Object.keys(schemas)) if (!HAND_WRITTEN.has(typeName(name))) out.push(`    ${pyString(typeName(name))},`);
  out.push(']');
  out.push('"""The TypedDict of every schema (re-exported by ``coldchain_client``)."""', '');
  return `${out.join('\n').replace(/\n{3,}(?=\S)/g, '\n\n\n').replace(/\n+$/, '')}\n`;
}

function main() {
  const document = JSON.parse(fs.readFileSync(SNAPSHOT, 'utf8'));
  const text = generate(document);
  if (process.argv.includes('--stdout')) {
    process.stdout.write(text);
    return;
  }
  fs.writeFileSync(OUTPUT, text);
  process.stderr.write(`wrote ${path.relative(ROOT, OUTPUT)}\n`);
}

module.exports = { generate, OUTPUT, SNAPSHOT };

if (require.main === module) main();
