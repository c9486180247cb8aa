'use strict';
// Heap flags of the api. V8 sizes the old generation from the machine's memory (up to 4 GB here)
// and collects it lazily, so under sustained load the api's RSS climbed past 300 MB while its live
// heap stayed near 50 MB. A cap alone makes V8 collect the old generation so often that ingestion
// costs about 40 % more CPU; with an initial old space of 120 MB it starts collecting late enough.
// Measured by the benchmark (BENCHMARKS.md, memory): peak RSS about 215 MB instead of 320 MB, for
// about 5-10 % more CPU per request or point. Used by `npm start` and the benchmark;
// `npm run start:api` (package.json) and docker/Dockerfile.api repeat them.
// The dispatcher runs with V8's defaults: heap caps took 15-20 MB off its peak RSS at 1,000 receiver
// origins but not to the 150 MB target (BENCHMARKS.md), so none is set; the benchmark reads this list.
module.exports = { API_NODE_FLAGS: ['--max-old-space-size=224', '--initial-old-space-size=120'], DISPATCHER_NODE_FLAGS: [] };
