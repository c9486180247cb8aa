#!/usr/bin/env node
'use strict';
// Builds the .NET client with Mono's C# compiler (mcs): the library, the test runner and the
// quick-start example, into clients/dotnet/bin/ (gitignored). Newtonsoft.Json comes from Debian's
// libnewtonsoft-json-cil-dev (or NEWTONSOFT_JSON_DLL) and is copied next to the assemblies.
//   node scripts/clients/build-dotnet.js [--quiet]
// Compiler output goes to stderr; nothing is written to stdout.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const DIR = path.join(ROOT, 'clients', 'dotnet');
const BIN = path.join(DIR, 'bin');
const quiet = process.argv.includes('--quiet');

function fail(message) {
  process.stderr.write(`build-dotnet: ${message}\n`);
  process.exit(1);
}

function findNewtonsoft() {
  const candidates = [process.env.NEWTONSOFT_JSON_DLL, '/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll'].filter(Boolean);
  const fromPkgConfig = spawnSync('pkg-config', ['--libs', 'newtonsoft-json'], { encoding: 'utf8' });
  if (fromPkgConfig.status === 0) {
    const match = /-r:(\S+)/.exec(fromPkgConfig.stdout);
    if (match) candidates.push(match[1]);
  }
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) fail('Newtonsoft.Json.dll not found: apt-get install -y libnewtonsoft-json-cil-dev (or set NEWTONSOFT_JSON_DLL)');
  return found;
}

function files(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(full));
    else if (entry.name.endsWith('.cs')) out.push(full);
  }
  return out.sort();
}

function compile(args) {
  const result = spawnSync('mcs', args, { cwd: DIR, encoding: 'utf8' });
  if (result.error) fail(`mcs could not run (${result.error.code}): apt-get install -y mono-devel`);
  const output = `${result.stdout}${result.stderr}`.trim();
  if (result.status !== 0) fail(`mcs failed:\n${output}`);
  if (!quiet && output) process.stderr.write(`${output}\n`);
}

function main() {
  const newtonsoft = findNewtonsoft();
  fs.mkdirSync(BIN, { recursive: true });
  fs.copyFileSync(newtonsoft, path.join(BIN, 'Newtonsoft.Json.dll'));
  // -langversion:7.2 keeps the code to C# that Mono and the .NET SDK (netstandard2.0 default 7.3) both accept
  // The version's one source is <Version> in the project file; the .NET SDK writes it into the
  // assembly, and so does this build (ClientVersion reads it back).
  const version = /<Version>([^<]+)<\/Version>/.exec(fs.readFileSync(path.join(DIR, 'Coldchain.Client.csproj'), 'utf8'));
  if (!version) fail('no <Version> in Coldchain.Client.csproj');
  const assemblyInfo = path.join(BIN, 'AssemblyVersion.g.cs');
  fs.writeFileSync(assemblyInfo, `[assembly: System.Reflection.AssemblyInformationalVersion(${JSON.stringify(version[1])})]\n[assembly: System.Reflection.AssemblyVersion(${JSON.stringify(version[1].replace(/[-+].*$/, ''))})]\n`);
  const common = ['-nologo', '-langversion:7.2', '-warnaserror+', '-nowarn:1591', '-r:System.Net.Http.dll', `-r:${path.join(BIN, 'Newtonsoft.Json.dll')}`];
  compile([...common, '-target:library', '-optimize+', `-doc:${path.join(BIN, 'Coldchain.Client.xml')}`, `-out:${path.join(BIN, 'Coldchain.Client.dll')}`, assemblyInfo, ...files(path.join(DIR, 'src'))]);
  const library = `-r:${path.join(BIN, 'Coldchain.Client.dll')}`;
  compile([...common, library, '-target:exe', `-out:${path.join(BIN, 'Coldchain.Client.Tests.exe')}`, ...files(path.join(DIR, 'tests'))]);
  compile([...common, library, '-target:exe', `-out:${path.join(BIN, 'Quickstart.exe')}`, path.join(DIR, 'examples', 'Quickstart.cs')]);
  if (!quiet) process.stderr.write(`build-dotnet: built ${path.relative(ROOT, BIN)}/{Coldchain.Client.dll,Coldchain.Client.Tests.exe,Quickstart.exe}\n`);
}

main();
