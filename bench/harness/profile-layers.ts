import { readFileSync } from 'node:fs';
import { type CpuProfile, owner } from './profile';

/** The layers a request crosses, in the order the rules are tried; the first match wins. */
const LAYERS: Array<{ name: string; matches(owner: string, functionName: string): boolean }> = [
  { name: 'socket writes (`writev`: syscalls, charged to the caller)', matches: (_o, fn) => fn === 'writev' || fn === 'writeBuffer' || fn === 'writeUtf8String' },
  { name: 'garbage collection', matches: (o) => o === '(garbage collector)' },
  { name: 'PostgreSQL client (`pg`, protocol, row and type parsing)', matches: (o) => /^(pg|pg-protocol|pg-pool|pg-types|pg-cloudflare|postgres-date|postgres-array|postgres-interval|postgres-bytea)$/.test(o) },
  { name: 'JWT verification (`jsonwebtoken`, `jws`, `jwa`)', matches: (o) => /^(jsonwebtoken|jws|jwa|buffer-equal-constant-time|ecdsa-sig-formatter|safe-buffer)$/.test(o) },
  { name: 'Passport (`passport`, `passport-jwt`, `@nestjs/passport`)', matches: (o) => /^(passport|passport-jwt|passport-strategy|@nestjs\/passport)$/.test(o) },
  { name: 'Nest (router, guards, pipes, interceptors)', matches: (o) => o.startsWith('@nestjs/') || /^(rxjs|reflect-metadata|iterare|tslib|es-toolkit|fast-safe-stringify)$/.test(o) },
  { name: 'validation (`class-validator`, `class-transformer`)', matches: (o) => /^(class-validator|class-transformer|validator|libphonenumber-js)$/.test(o) },
  {
    name: 'Express, its router and middleware packages',
    matches: (o) =>
      /^(express|router|body-parser|raw-body|parseurl|content-type|type-is|media-typer|mime-types|mime-db|on-finished|ee-first|path-to-regexp|finalhandler|qs|etag|fresh|range-parser|accepts|negotiator|proxy-addr|forwarded|ipaddr\.js|vary|encodeurl|escape-html|depd|debug|ms|statuses|http-errors|send|serve-static|content-disposition|cookie|cookie-signature|merge-descriptors|setprototypeof|unpipe|iconv-lite|bytes)$/.test(o),
  },
  { name: 'metrics and rate limiting (`prom-client`, `rate-limiter-flexible`)', matches: (o) => /^(prom-client|rate-limiter-flexible|tdigest|bintrees)$/.test(o) },
  { name: 'logging (`pino`, `pino-http`)', matches: (o) => o.startsWith('pino') || o === 'sonic-boom' },
  { name: 'application code (dist/: repositories, DTOs, paging, own middleware and guards)', matches: (o) => o === 'project' },
  { name: 'Node internals (http, streams, events, timers, crypto wrappers)', matches: (o) => o === 'node internals' },
];
const OTHER = 'other native code and V8 (builtins, JSON, regexps, compilation)';

/** Self time (µs) per layer, and the busy total, of one profile. */
function layerTimes(file: string): { busy: number; byLayer: Map<string, number> } {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const byLayer = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') return;
    const micros = profile.timeDeltas[i] ?? 0;
    busy += micros;
    const who = owner(node.callFrame.url, node.callFrame.functionName);
    const layer = LAYERS.find((l) => l.matches(who, node.callFrame.functionName))?.name ?? OTHER;
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + micros);
  });
  return { busy, byLayer };
}

/**
 * The api's and the baseline's profiles side by side, by layer: each layer's share of the side's
 * busy time, converted to CPU-µs per request with the side's measured CPU per request (the
 * profiles must cover one HTTP scenario only, e.g. `--only=api-list --profile`).
 */
export function compareLayers(apiFile: string, baselineFile: string, cpuPerRequest: { project: number; baseline: number }, scenario: string): string {
  const api = layerTimes(apiFile);
  const base = layerTimes(baselineFile);
  const perRequest = (side: { busy: number; byLayer: Map<string, number> }, layer: string, cpu: number): number =>
    ((side.byLayer.get(layer) ?? 0) / side.busy) * cpu * 1e6;
  const layers = [...LAYERS.map((l) => l.name), OTHER].filter((l) => api.byLayer.has(l) || base.byLayer.has(l));
  const rows = layers
    .map((layer) => ({ layer, project: perRequest(api, layer, cpuPerRequest.project), baseline: perRequest(base, layer, cpuPerRequest.baseline) }))
    .sort((a, b) => b.project - b.baseline - (a.project - a.baseline));
  const us = (value: number): string => value.toFixed(0);
  return [
    `CPU per request by layer, ${scenario}: api ${us(cpuPerRequest.project * 1e6)} µs, baseline ${us(cpuPerRequest.baseline * 1e6)} µs (median CPU per request measured`,
    'under the profiler, split by each profile\'s self-time shares; larger differences first).',
    '',
    '| layer | api, µs/request | baseline, µs/request | difference |',
    '|---|---|---|---|',
    ...rows.map((r) => `| ${r.layer} | ${us(r.project)} | ${us(r.baseline)} | ${r.project - r.baseline >= 0 ? '+' : ''}${us(r.project - r.baseline)} |`),
  ].join('\n');
}
