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
// delivery. The old-space cap of 512 MB is not there to be reached (its live heap is a few tens of
// MB): V8 lets the old generation grow by up to 4x between collections only when the heap limit is
// large (from 2 GB; without a flag the limit follows the machine's memory), and by about 1.4x under
// this cap, so the garbage of 1,000 first TLS handshakes is collected before it piles up: peak RSS
// at 1,000 origins 134-135 MB instead of 156-174 MB, same CPU per delivery (BENCHMARKS.md,
// webhook-origins). Used by `npm start` and the benchmark; `npm run start:dispatcher` and
// docker/Dockerfile.dispatcher repeat them.
module.exports = {
  API_NODE_FLAGS: ['--max-old-space-size=224', '--initial-old-space-size=120'],
  DISPATCHER_NODE_FLAGS: ['--max-semi-space-size=4', '--max-old-space-size=512'],
};
