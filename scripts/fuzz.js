#!/usr/bin/env node
'use strict';
// `npm run fuzz [-- --requests 20000] [-- --seed N]`: builds if needed, then runs the compiled
// fuzzer (fuzz/main.ts) against an api it starts on a database of its own. See README → Security.
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ensureBuild, root } = require('./ensure-build');

ensureBuild();
const child = spawn(process.execPath, [path.join(root, 'dist/fuzz/main.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
