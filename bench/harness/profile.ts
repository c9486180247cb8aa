import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: an npm package, the project, Node itself, or a V8 pseudo-frame. */
export function owner(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/dist/')) return 'project';
  return url;
}

function location(url: string, line: number): string {
  const short = url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '').replace(/^.*\/dist\//, 'dist/');
  return short ? `${short}:${line + 1}` : '';
}

/** Self time by function and by owner (package / project / node), as markdown, from a .cpuprofile. */
export function summarizeProfile(file: string, top = 25): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let busy = 0;
  const functions = new Map<string, number>();
  const owners = new Map<string, number>();
  for (const [id, micros] of self) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    busy += micros;
    const { functionName, url, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${location(url, lineNumber)}`.trim();
    functions.set(key, (functions.get(key) ?? 0) + micros);
    const who = owner(url, functionName);
    owners.set(who, (owners.get(who) ?? 0) + micros);
  }
  const pct = (micros: number): string => `${((micros / busy) * 100).toFixed(1)} %`;
  const sorted = (map: Map<string, number>): Array<[string, number]> => [...map].sort((a, b) => b[1] - a[1]);
  const lines = [
    `CPU profile ${file}: ${(busy / 1e6).toFixed(1)} s busy (idle excluded).`,
    '',
    '| self time by owner | share |',
    '|---|---|',
    ...sorted(owners).slice(0, 15).map(([who, micros]) => `| ${who} | ${pct(micros)} |`),
    '',
    '| top frames by self time | share |',
    '|---|---|',
    ...sorted(functions).slice(0, top).map(([fn, micros]) => `| \`${fn}\` | ${pct(micros)} |`),
  ];
  return lines.join('\n');
}
