#!/usr/bin/env node
'use strict';
// `npm run soak -- --minutes 30`: builds if needed, then runs the compiled soak harness
// (bench/soak/main.ts). Not part of `npm test`: see BENCHMARKS.md, "Soak".
require('./ensure-build').runCompiled('dist/bench/soak/main.js');
