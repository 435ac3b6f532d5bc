#!/usr/bin/env node
'use strict';
// Thin launcher: the command line is bundled into dist/cli.js by `npm run build` (also run by `npm ci` via `prepare`).
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('proxy-tuner: dist/cli.js is missing; run `npm run build` first.\n');
  process.exit(2);
}
require(cli);
