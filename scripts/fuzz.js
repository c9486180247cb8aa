#!/usr/bin/env node
'use strict';
// `npm run fuzz [-- --requests 20000] [-- --seed N]`: builds if needed, then runs the compiled
// fuzzer (fuzz/main.ts) against an api it starts on a database of its own. See README → Security.
require('./ensure-build').runCompiled('dist/fuzz/main.js');
