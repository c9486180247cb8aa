#!/usr/bin/env node
'use strict';
const path = require('node:path');
const { ensureBuild, root } = require('./ensure-build');

ensureBuild();
require(path.join(root, 'dist', 'apps', 'cli', 'src', 'main.js'));
