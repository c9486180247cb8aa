'use strict';
// Heap flags of the api. V8 sizes the old generation from the machine's memory (up to 4 GB here)
// and collects it lazily, so under sustained load the api's RSS climbed past 300 MB while its live
// heap stayed near 50 MB. A cap alone makes V8 collect the old generation so often that ingestion
// costs about 40 % more CPU; with an initial old space of 120 MB it starts collecting late enough.
// Measured by the benchmark (BENCHMARKS.md, memory): peak RSS about 215 MB instead of 320 MB, for
// about 5-10 % more CPU per request or point. Used by `npm start` and the benchmark;
// `npm run start:api` (package.json) and docker/Dockerfile.api repeat them.
// The dispatcher: a young generation of 4 MB per semi-space (V8's default grows it to 16 MB) took
// about 20 MB off its RSS before and after delivering to 1,000 receiver origins, with no more CPU per
// delivery (BENCHMARKS.md, webhook-origins); no old-space cap. Used by `npm start` and the benchmark;
// `npm run start:dispatcher` and docker/Dockerfile.dispatcher repeat it.
module.exports = {
  API_NODE_FLAGS: ['--max-old-space-size=224', '--initial-old-space-size=120'],
  DISPATCHER_NODE_FLAGS: ['--max-semi-space-size=4'],
};
