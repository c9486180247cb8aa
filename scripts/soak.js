#!/usr/bin/env node
'use strict';
// `npm run soak -- --minutes 30`: builds if needed, then runs the compiled soak harness
// (bench/soak/main.ts). Not part of `npm test`: see BENCHMARKS.md, "Soak".
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ensureBuild, root } = require('./ensure-build');

ensureBuild();
const child = spawn(process.execPath, [path.join(root, 'dist/bench/soak/main.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
// Ctrl-C reaches the harness through the terminal's process group; it cleans up and exits.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 130 : 1)));
