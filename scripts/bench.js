#!/usr/bin/env node
'use strict';
// `npm run bench [-- --quick] [-- --only=api-list,ingest] [-- --profile]`: builds if needed, then
// runs the compiled harness (bench/main.ts). Not part of `npm test`: see BENCHMARKS.md.
require('./ensure-build').runCompiled('dist/bench/main.js');
