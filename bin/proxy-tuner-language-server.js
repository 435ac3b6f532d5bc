#!/usr/bin/env node
'use strict';
// The language server for any LSP client: `proxy-tuner-language-server --stdio` (the bundle is
// dist/server.js). Without a transport argument it speaks over stdio, which is what every
// editor's configuration in docs/editors.md starts.
const path = require('node:path');
const fs = require('node:fs');
const server = path.join(__dirname, '..', 'dist', 'server.js');
if (!fs.existsSync(server)) {
  process.stderr.write('proxy-tuner-language-server: dist/server.js is missing; run `npm run build` first.\n');
  process.exit(2);
}
const args = process.argv.slice(2);
if (args.includes('--version') || args.includes('-v')) {
  process.stdout.write(`${require(path.join(__dirname, '..', 'package.json')).version}\n`);
  process.exit(0);
}
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write('usage: proxy-tuner-language-server [--stdio | --node-ipc | --socket=PORT | --pipe=NAME]\n');
  process.exit(0);
}
if (!args.some((a) => /^--(stdio|node-ipc|socket|pipe)/.test(a))) process.argv.push('--stdio');
require(server);
