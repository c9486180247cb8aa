'use strict';
// Heap flags of the api. V8 sizes the old generation from the machine's memory (up to 4 GB here)
// and collects it lazily, so under sustained load the api's RSS climbed past 300 MB while its live
// heap stayed far below that; with the cap, peak RSS under the benchmark load is about 175 MB.
// The young generation keeps its usual 16 MB semi-spaces (a small old-space cap would shrink them
// too, and scavenge more often). Used by `npm start` and the benchmark; `npm run start:api`
// (package.json) and docker/Dockerfile.api repeat them. See BENCHMARKS.md (memory).
module.exports = { API_NODE_FLAGS: ['--max-old-space-size=160', '--max-semi-space-size=16'] };
