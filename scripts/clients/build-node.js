#!/usr/bin/env node
'use strict';
// The Node.js client builds itself (clients/node/scripts/build.js, so that `npm pack` works in
// clients/node alone); this is the same build from the repository root, with the same options:
//   node scripts/clients/build-node.js [--out DIR] [--quiet] [--force] [--no-types]
require('../../clients/node/scripts/build.js');
