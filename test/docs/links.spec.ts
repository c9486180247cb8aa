import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { signWebhook } from '@app/webhook-kit';

const root = process.cwd();

function markdownFiles(): string[] {
  const files = ['README.md', 'CHANGELOG.md', 'BENCHMARKS.md'].filter((file) => existsSync(join(root, file)));
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir))) {
      const path = join(dir, entry);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (entry.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/** The text outside fenced code blocks (links in code are examples, not links). */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's heading anchors: lower case, punctuation dropped (letters of any script kept), spaces to hyphens. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of prose(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const [, id] of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) found.add(id);
  return found;
}

describe('the repository documents itself: every relative link resolves inside it', () => {
  const files = markdownFiles();

  it('finds the English and Turkish guides', () => {
    expect(files).toEqual(expect.arrayContaining(['README.md', join('docs', 'en', 'README.md'), join('docs', 'tr', 'README.md')]));
  });

  it.each(files)('%s has no dead relative link and no link outside the repository', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    expect(text).not.toContain('../shared');
    const dead: string[] = [];
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path, anchor] = target.split('#');
      const resolved = path ? resolve(dirname(join(root, file)), decodeURI(path)) : join(root, file);
      if (relative(root, resolved).startsWith('..')) {
        dead.push(`${target} (outside the repository)`);
        continue;
      }
      if (!existsSync(resolved)) {
        dead.push(`${target} (no such file)`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) dead.push(`${target} (no such heading)`);
    }
    expect(dead).toEqual([]);
  });
});

describe('the receiver examples of the guide verify what the service signs', () => {
  const guide = readFileSync(join(root, 'docs', 'en', 'README.md'), 'utf8');
  const block = (language: string): string => {
    const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(guide);
    if (!match) throw new Error(`no ${language} block in the guide`);
    return match[1];
  };
  const secret = 'whsec_docs-example-secret';
  const body = JSON.stringify({ id: 'e1', type: 'alarm.created', created_at: '2026-11-25T10:00:00Z', data: { n: 1 } });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = signWebhook(secret, timestamp, body);
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'guide-examples-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('Python', () => {
    writeFileSync(join(dir, 'receiver.py'), block('python'));
    const check = (sig: string, raw: string, ts = timestamp) =>
      execFileSync('python3', ['-c', `import sys, receiver; print(receiver.verify({"X-Service-Timestamp": sys.argv[1], "X-Service-Signature": sys.argv[2]}, sys.argv[3].encode(), ["other", sys.argv[4]]))`, ts, sig, raw, secret], { cwd: dir, encoding: 'utf8' }).trim();
    expect(check(signature, body)).toBe('True');
    expect(check(signature, `${body} `)).toBe('False');
    expect(check(signature.replace(/.$/, '0'), body)).toBe(signature.endsWith('0') ? 'True' : 'False');
    expect(check(signWebhook(secret, '1000', body), body, '1000')).toBe('False'); // outside the 300 s window
  });

  it('Node.js', () => {
    const file = join(dir, 'receiver.cjs');
    writeFileSync(file, block('js'));
    const run = (sig: string, raw: string) =>
      execFileSync(
        process.execPath,
        ['-e', `const { verify } = require(${JSON.stringify(file)}); process.stdout.write(String(verify({ 'x-service-timestamp': process.argv[1], 'x-service-signature': process.argv[2] }, Buffer.from(process.argv[3]), ['other', process.argv[4]])))`, timestamp, sig, raw, secret],
        { cwd: root, encoding: 'utf8', env: { ...process.env, NODE_PATH: join(root, 'node_modules') } },
      );
    expect(run(signature, body)).toBe('true');
    expect(run(signature, `${body} `)).toBe('false');
  });
});
