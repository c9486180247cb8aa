import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Drift check of the .NET client: scripts/clients/generate-dotnet.js regenerates the models,
 * services and operation table from clients/openapi.json in memory; they must equal the committed
 * files under clients/dotnet/src/Generated (run `npm run clients:generate:dotnet` after a contract
 * change).
 */
const ROOT = process.cwd();
const GENERATED = join('clients', 'dotnet', 'src', 'Generated');

describe('.NET client: generated code', () => {
  const files = JSON.parse(execFileSync(process.execPath, [join(ROOT, 'scripts', 'clients', 'generate-dotnet.js'), '--print'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Record<string, string>;

  it('is generated into exactly the committed files', () => {
    expect(readdirSync(join(ROOT, GENERATED)).sort()).toEqual(Object.keys(files).map((file) => file.split('/').pop()).sort());
  });

  it.each(Object.keys(files))('%s matches clients/openapi.json', (file) => {
    expect(readFileSync(join(ROOT, file), 'utf8')).toBe(files[file]);
  });

  it('has a client method for every operation of the document', () => {
    const document = JSON.parse(readFileSync(join(ROOT, 'clients', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map((operation) => operation.operationId)).filter((id): id is string => typeof id === 'string');
    const table = files[`${GENERATED.split('\\').join('/')}/Operations.cs`];
    for (const id of ids) expect(table).toMatch(new RegExp(`new OperationInfo\\("${id}", "[A-Z]+", "[^"]*", "[^"]*", "\\w+", new\\[\\] \\{ "\\w+Async"`));
  });
});
