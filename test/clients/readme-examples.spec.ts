import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The code in each client's README compiles (issue 29, item 4): every ```ts block with
 * `tsc --strict` against the Node.js client's sources, every ```python block with mypy --strict
 * (Debian's python3-mypy, installed by .ci/run) against the Python package, every ```csharp block
 * with Mono's mcs -warnaserror against the built .NET library. Each block is its own module; the
 * names a README takes as given (`client`, `deviceId`, `body`, …) are declared once in a prelude.
 */
const ROOT = process.cwd();
const WORK = join(ROOT, 'node_modules', '.cache', 'readme-examples');

/** A fresh work folder for one client, and the code blocks of its README in one language (at least `min`). */
function readmeBlocks(client: string, language: string, min: number): { dir: string; found: string[] } {
  const dir = join(WORK, client);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(join(ROOT, 'clients', client, 'README.md'), 'utf8');
  const found = [...text.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```$', 'gm'))].map((m) => m[1]);
  expect(found.length).toBeGreaterThanOrEqual(min);
  return { dir, found };
}

function expectClean(result: ReturnType<typeof spawnSync>, what: string): void {
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status}):\n${String(result.stdout)}${String(result.stderr)}`);
}

const has = (command: string, args: string[]): boolean => spawnSync(command, args, { stdio: 'ignore' }).status === 0;

describe('client READMEs: the examples compile', () => {
  it('Node.js: every ts block passes tsc --strict', () => {
    const { dir, found } = readmeBlocks('node', 'ts', 6);
    writeFileSync(
      join(dir, 'prelude.d.ts'),
      [
        "import type { ColdchainClient, CreateShipment } from '@coldchain/client';",
        "import type { Express } from 'express';",
        'declare global {',
        '  const client: ColdchainClient;',
        '  const baseUrl: string, clientId: string, clientSecret: string, primaryId: string, secondId: string;',
        '  const deviceId: string, orderId: string, id: number;',
        '  const body: CreateShipment;',
        '  const shipment: { id: number };',
        '  const response: NodeJS.WritableStream;',
        '  const app: Express;',
        '}',
        'export {};',
        '',
      ].join('\n'),
    );
    const files = found.map((code, index) => {
      const file = join(dir, `block${index + 1}.ts`);
      writeFileSync(file, `${code}\nexport {};\n`);
      return file;
    });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'ES2022',
          moduleResolution: 'bundler',
          esModuleInterop: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
          paths: { '@coldchain/client': [join(ROOT, 'clients', 'node', 'src', 'index.ts')] },
        },
        files: [join(dir, 'prelude.d.ts'), ...files],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    expectClean(spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8', timeout: 120_000 }), 'tsc --strict');
  }, 150_000);

  const mypy = has('/usr/bin/python3', ['-m', 'mypy', '--version']);
  (mypy ? it : it.skip)('Python: every python block passes mypy --strict', () => {
    const { dir, found } = readmeBlocks('python', 'python', 6);
    writeFileSync(
      join(dir, '_prelude.py'),
      [
        '"""The names the README takes as given."""',
        'from typing import IO, Any, Mapping',
        'from coldchain_client import ColdchainClient, CreateLocation',
        'client: ColdchainClient = ColdchainClient("https://api.example.com", "id", "secret")',
        'base_url = "https://api.example.com"',
        'client_id = "id"',
        'client_secret = "secret"',
        'primary_id = secondary_id = device_id = device_a = device_b = origin_id = destination_id = report_id = other_id = "x"',
        'current_secret = previous_secret = "whsec_x"',
        'row_id = 1',
        'body: CreateLocation = {"name": "Depot", "kind": "warehouse", "geofence": {"type": "circle", "center": {"latitude": 0, "longitude": 0}, "radius_m": 100}}',
        '',
      ].join('\n'),
    );
    // And the typing the issue asks for: the bucket variant of telemetry returns buckets (overloads),
    // limit is an int, resolved a bool, the TypedDicts are exported (lists are invariant: a wrong
    // overload fails here).
    found.push(
      [
        'from typing import List',
        'from coldchain_client import Alarm, TelemetryBucket, TelemetryPoint',
        'points: List[TelemetryPoint] = client.telemetry.list("d", limit=10).data',
        'buckets: List[TelemetryBucket] = client.telemetry.list("d", bucket="1h", limit=10).data',
        'tracked: List[TelemetryBucket] = list(client.shipments.iter_tracking(1, bucket="1d"))',
        'alarms: List[Alarm] = client.alarms.list(resolved=False).data',
        '',
      ].join('\n'),
    );
    const files = found.map((code, index) => {
      const file = join(dir, `block${index + 1}.py`);
      writeFileSync(file, `from _prelude import *  # noqa: F401,F403\n${code}`);
      return file;
    });
    const result = spawnSync('/usr/bin/python3', ['-m', 'mypy', '--strict', '--no-incremental', '--cache-dir=/dev/null', '--allow-redefinition', '--disable-error-code=no-redef', ...files], {
      cwd: dir,
      env: { ...process.env, MYPYPATH: join(ROOT, 'clients', 'python') },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expectClean(result, 'mypy --strict');
  }, 150_000);

  const mono = has('mcs', ['--version']);
  (mono ? it : it.skip)('.NET: every csharp block compiles with mcs -warnaserror', () => {
    const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'clients', 'build-dotnet.js'), '--quiet'], { cwd: ROOT, encoding: 'utf8' });
    expectClean(build, 'build-dotnet');
    const { dir, found } = readmeBlocks('dotnet', 'csharp', 5);
    const usings = new Set(['using System;', 'using System.Collections.Generic;', 'using System.IO;', 'using System.Threading;', 'using System.Threading.Tasks;', 'using Coldchain.Client;', 'using Coldchain.Client.Models;', 'using Coldchain.Client.Webhooks;']);
    const methods = found.map((code, index) => {
      const lines = code.split('\n');
      for (const line of lines.filter((l) => /^using [\w.]+;$/.test(l.trim()))) usings.add(line.trim());
      const statements = lines.filter((l) => !/^using [\w.]+;$/.test(l.trim())).join('\n');
      const returns = /\breturn\b/.test(statements);
      return `        public async Task<object> Block${index + 1}()\n        {\n${statements}\n${returns ? '' : '            return null;\n'}        }\n`;
    });
    const source = `${[...usings].join('\n')}

namespace ReadmeExamples
{
    /// <summary>What an ASP.NET Core controller would give the webhook example.</summary>
    public sealed class FakeRequest
    {
        public Stream Body = new MemoryStream();
        public Dictionary<string, string> Headers = new Dictionary<string, string>();
    }

    public sealed class Examples
    {
        private ColdchainClient client = null;
        private string deviceId = "d", primaryId = "a", secondaryId = "b", currentSecret = "s1", previousSecret = "s2";
        private CancellationToken ct = CancellationToken.None;
        private AutoPager<Device> pager = null;
        private FakeRequest Request = new FakeRequest();
        private object Ok() { return "ok"; }
        private object Unauthorized() { return "unauthorized"; }
        private void Use(object value) { Console.WriteLine(value); }
        private void Handle(object value) { Console.WriteLine(value); }

${methods.join('\n')}
        public override string ToString() { return client + deviceId + primaryId + secondaryId + currentSecret + previousSecret + ct + pager + Request; }
    }
}
`;
    writeFileSync(join(dir, 'Examples.cs'), source);
    const bin = join(ROOT, 'clients', 'dotnet', 'bin');
    const result = spawnSync(
      'mcs',
      ['-nologo', '-langversion:7.2', '-warnaserror+', '-target:library', '-r:System.Net.Http.dll', `-r:${join(bin, 'Newtonsoft.Json.dll')}`, `-r:${join(bin, 'Coldchain.Client.dll')}`, `-out:${join(dir, 'Examples.dll')}`, join(dir, 'Examples.cs')],
      { cwd: dir, encoding: 'utf8', timeout: 120_000 },
    );
    expectClean(result, `mcs -warnaserror (source in ${join(dir, 'Examples.cs')})`);
  }, 150_000);
});
