// Formatting through the language server (dist/server.js over stdio): the capabilities are
// declared, `textDocument/formatting` and `rangeFormatting` answer edits that give the same text
// as the module does, for nginx and HAProxy.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { applyEdits } from '../../server/src/core/rules';
import { LspClient } from '../lsp/rpcClient';
import { format } from './helpers';

const CASES = [
  {
    lang: 'nginx' as const,
    uri: 'file:///tmp/pt-format/nginx.conf',
    text: 'events {}\nhttp {\nserver {\n  listen   80;\n      root /a;\n}\n}\n',
  },
  {
    lang: 'haproxy' as const,
    uri: 'file:///tmp/pt-format/haproxy.cfg',
    text: '  global\nmaxconn    10\n\n\n backend b\n server   s1 127.0.0.1:80\n',
  },
];

describe('formatting over LSP', () => {
  for (const c of CASES) {
    it(`${c.lang}: document and range formatting`, { timeout: 30_000 }, async () => {
      const server = new LspClient(['--stdio'], { PROXY_TUNER_NO_LOCAL_VERSION: '1' });
      try {
        const { capabilities } = await server.initialize();
        assert.equal(capabilities.documentFormattingProvider, true);
        assert.equal(capabilities.documentRangeFormattingProvider, true);
        server.notify('textDocument/didOpen', { textDocument: { uri: c.uri, languageId: c.lang, version: 1, text: c.text } });
        const doc = TextDocument.create(c.uri, c.lang, 1, c.text);
        const options = { tabSize: 2, insertSpaces: true };
        const edits = await server.request('textDocument/formatting', { textDocument: { uri: c.uri }, options });
        assert.ok(edits.length > 0);
        const out = applyEdits(doc, edits);
        assert.equal(out, format(c.lang, c.text, undefined, options));
        assert.ok(
          out.split('\n').some((l) => l.startsWith('  ') && !l.startsWith('   ')),
          `two-space indentation used:\n${out}`,
        );
        const range = { start: { line: 4, character: 0 }, end: { line: 4, character: 2 } };
        const redits = await server.request('textDocument/rangeFormatting', { textDocument: { uri: c.uri }, range, options });
        const rout = applyEdits(doc, redits);
        assert.equal(rout, format(c.lang, c.text, range, options));
        assert.notEqual(rout, c.text);
        // lines outside the range are untouched
        assert.equal(rout.split('\n')[0], c.text.split('\n')[0]);
      } finally {
        await server.stop();
      }
    });
  }
});
